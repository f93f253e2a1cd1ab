import type { ReactNode } from 'react';
import { useGlimpse } from '../flow/StoreContext.js';
import { fill } from '../i18n/format.js';
import { useStrings } from '../screens/useStrings.js';
import { voteModalTop } from './voteModalPosition.js';

/** Gap between the dialog and the window's bottom edge when it sits below the stimuli. */
const BELOW_STIMULI_MARGIN_PX = 12;

/**
 * The vote dialog frame: its place (SPEC §9), the "index / length" line and, when the question is not shown along
 * the test (categoryTest ≥ 3, SPEC §3), the question; the protocol's view goes inside. `belowStimuli`: the dialog
 * sits at the bottom of the window instead, for 3D objects still being inspected while it is up (README "3D
 * objects"): at 40 % of the height it would cover their upper half.
 */
export function VoteModal({
  index,
  total,
  question = null,
  belowStimuli = false,
  children,
}: {
  index: number;
  total: number;
  question?: string | null;
  belowStimuli?: boolean;
  children: ReactNode;
}) {
  const t = useStrings();
  const phone = useGlimpse((s) => s.query.phone);
  const top = voteModalTop({ phone, portrait: window.innerHeight >= window.innerWidth, innerHeight: window.innerHeight, outerHeight: window.outerHeight });
  return (
    <div className="floating-dialog vote-modal" role="dialog" id="vote-modal" style={belowStimuli ? { bottom: BELOW_STIMULI_MARGIN_PX } : { top }}>
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
