import type { ReactNode } from 'react';
import { useGlimpse } from '../flow/StoreContext.js';
import { fill } from '../i18n/format.js';
import { useStrings } from '../screens/useStrings.js';
import { voteModalTop } from './voteModalPosition.js';

/**
 * The vote dialog frame: its place (SPEC §9), the "index / length" line and, when the question is not shown along
 * the test (categoryTest ≥ 3, SPEC §3), the question; the protocol's view goes inside.
 */
export function VoteModal({ index, total, question = null, children }: { index: number; total: number; question?: string | null; children: ReactNode }) {
  const t = useStrings();
  const phone = useGlimpse((s) => s.query.phone);
  const top = voteModalTop({ phone, portrait: window.innerHeight >= window.innerWidth, innerHeight: window.innerHeight, outerHeight: window.outerHeight });
  return (
    <div className="floating-dialog vote-modal" role="dialog" id="vote-modal" style={{ top }}>
      <p className="vote-progress">{fill(t.voteProgress, { index: index + 1, total })}</p>
      {question && (
        <p className="vote-question" id="vote-question">
          {question}
        </p>
      )}
      {children}
    </div>
  );
}
