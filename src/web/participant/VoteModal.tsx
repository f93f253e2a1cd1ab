import type { ReactNode } from 'react';
import { useGlimpse } from '../flow/StoreContext.js';
import { fill } from '../i18n/format.js';
import { useStrings } from '../screens/useStrings.js';
import { voteModalTop } from './voteModalPosition.js';

/**
 * The vote dialog frame: its place (SPEC §9), the "index / length" line and, when the question is not shown along
 * the test (categoryTest ≥ 3, SPEC §3), the question; the protocol's view goes inside. `slot` (client CSS px): 3D
 * objects stay up, turnable, while the dialog is open (inspect), so it goes in the band their layout left free
 * beside or below them instead (docs/3d-objects.md), and scrolls there rather than cover one of them.
 */
export function VoteModal({
  index,
  total,
  question = null,
  slot = null,
  children,
}: {
  index: number;
  total: number;
  question?: string | null;
  slot?: { x: number; y: number; width: number; height: number } | null;
  children: ReactNode;
}) {
  const t = useStrings();
  const phone = useGlimpse((s) => s.query.phone);
  const top = voteModalTop({ phone, portrait: window.innerHeight >= window.innerWidth, innerHeight: window.innerHeight, outerHeight: window.outerHeight });
  const dialog = (
    <div className={`floating-dialog vote-modal${slot ? ' in-slot' : ''}`} role="dialog" id="vote-modal" style={slot ? undefined : { top }}>
      <p className="vote-progress">{fill(t.voteProgress, { index: index + 1, total })}</p>
      {question && (
        <p className="vote-question" id="vote-question">
          {question}
        </p>
      )}
      {children}
    </div>
  );
  if (!slot) return dialog;
  return (
    <div className="vote-slot" id="vote-slot" style={{ left: slot.x, top: slot.y, width: slot.width, height: slot.height }}>
      {dialog}
    </div>
  );
}
