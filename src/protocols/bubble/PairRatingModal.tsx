import { useStrings } from '../../web/screens/useStrings.js';
import { VoteModal } from '../../web/participant/VoteModal.js';
import type { PairChoice } from './payloads.js';

/**
 * SPEC §2 pair rating modal: the question and 'First Image' / 'Last Image' (videos: 'First Video' / 'Last Video'),
 * in the vote dialog at 40 % of the window height with the 'index / length' line. A click answers.
 */
export function PairRatingModal(props: { question: string; video: boolean; index: number; total: number; busy: boolean; onAnswer(choice: PairChoice): void }) {
  const t = useStrings();
  return (
    <VoteModal index={props.index} total={props.total}>
      <p className="vote-choice" id="bubble-question">
        {props.question}
      </p>
      <div className="vote-buttons">
        <button id="bubble-first" type="button" disabled={props.busy} onClick={() => props.onAnswer('first')}>
          {props.video ? t.firstVideo : t.firstImage}
        </button>
        <button id="bubble-last" type="button" disabled={props.busy} onClick={() => props.onAnswer('last')}>
          {props.video ? t.lastVideo : t.lastImage}
        </button>
      </div>
    </VoteModal>
  );
}
