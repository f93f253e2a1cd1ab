import { useState } from 'react';
import type { ResponseViewProps } from '../types.js';
import { pairLabels, type PairAnswer, type PairParams } from './plan.js';

/**
 * The pair vote dialog (SPEC §4 steps 2-5): choose the first or the last option (or replay), then Submit or
 * Modify. The page remounts it for every stimulus and after every replay, which clears the answer.
 */
export function PairResponse({ params, stimulus, strings, busy, onAnswer, onReplay }: ResponseViewProps<PairParams, PairAnswer>) {
  const [answer, setAnswer] = useState<PairAnswer | null>(null);
  const labels = pairLabels(stimulus, params);
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

/** SPEC §4 step 5: with no answer nothing is sent; the reminder is only logged. */
export function submitAnswer<A>(answer: A | null, send: (answer: A) => void): boolean {
  if (answer === null) {
    console.log('Please select an answer first');
    return false;
  }
  send(answer);
  return true;
}
