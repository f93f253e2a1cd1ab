import { useState } from 'react';
import type { Strings } from '../../../web/i18n/en.js';
import { submitAnswer } from '../submitAnswer.js';
import type { ResponseViewProps } from '../../types.js';

/**
 * SPEC §3 client state: the answer is optionimageA (first/left/top), optionimageB, or none. The answer of every
 * two-option dialog (pairs, MLDS, triplets), named after the pair comparison.
 */
export type PairAnswer = 'optionimageA' | 'optionimageB';

/** Labels of a two-option vote dialog (SPEC §2 "Rating dialogs"): the first/left/top option, the other, replay. */
export interface ChoiceLabels {
  first: keyof Strings;
  last: keyof Strings;
  replay: keyof Strings;
}

/** Parameters of a two-option protocol whose labels depend only on the job (null: a categoryTest it cannot show). */
export interface ChoiceParams {
  labels: ChoiceLabels | null;
}

type DialogProps = Pick<ResponseViewProps<unknown, PairAnswer>, 'strings' | 'busy' | 'onAnswer' | 'onReplay'> & {
  labels: ChoiceLabels;
};

/**
 * The two-option vote dialog shared by pairs, MLDS and triplets (SPEC §4 steps 2-5): pick one side (or replay),
 * then Submit or Modify. The answer is positional (optionimageA = first/left/top, SPEC §3 client state). The page
 * remounts it for every stimulus and after every replay, which clears the answer.
 */
export function ChoiceDialog({ labels, strings, busy, onAnswer, onReplay }: DialogProps) {
  const [answer, setAnswer] = useState<PairAnswer | null>(null);
  if (answer === null) {
    return (
      <div className="vote-buttons">
        <button id="vote-first" type="button" disabled={busy} onClick={() => setAnswer('optionimageA')}>
          {strings[labels.first]}
        </button>
        <button id="vote-last" type="button" disabled={busy} onClick={() => setAnswer('optionimageB')}>
          {strings[labels.last]}
        </button>
        <button id="vote-replay" type="button" className="secondary" disabled={busy} onClick={onReplay}>
          {strings[labels.replay]}
        </button>
      </div>
    );
  }
  return (
    <div className="vote-confirm">
      <p className="vote-choice">{strings[answer === 'optionimageA' ? labels.first : labels.last]}</p>
      <div className="vote-buttons">
        <button id="vote-submit" type="button" disabled={busy} onClick={() => submitAnswer(answer, onAnswer)}>
          {strings.submit}
        </button>
        <button id="vote-modify" type="button" className="secondary" disabled={busy} onClick={() => setAnswer(null)}>
          {strings.modify}
        </button>
      </div>
    </div>
  );
}

/**
 * The response view of MLDS and triplets: the two-option dialog with the labels of the job's categoryTest. A
 * categoryTest without labels shows 'Error of category modal' (SPEC §2).
 */
export function ChoiceResponse({ params, strings, busy, onAnswer, onReplay }: ResponseViewProps<ChoiceParams, PairAnswer>) {
  if (!params.labels) {
    return (
      <p className="error-text" id="category-error-modal">
        {strings.categoryErrorModal}
      </p>
    );
  }
  return <ChoiceDialog labels={params.labels} strings={strings} busy={busy} onAnswer={onAnswer} onReplay={onReplay} />;
}
