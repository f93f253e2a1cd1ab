import { postRating } from './api.js';
import type { GlimpseStore } from './store.js';
import { newUuid } from './uuid.js';

/** One answer of this page's session, as the trial hooks know it. */
export interface RatingOfStimulus {
  stimulusId: number;
  value: number;
  nbReplay: number;
  logs: string;
}

export interface RatingOutcome {
  /** The server has it: advance. */
  stored(): void;
  /** Only logged (SPEC §4 step 6, §7): stay on the stimulus so the participant can submit again. */
  failed(): void;
}

export type RatingSender = (rating: RatingOfStimulus, outcome: RatingOutcome) => boolean;

/**
 * Posting a rating, shared by the generic test page and the piiface page (one sender per page): a stimulus keeps
 * one Idempotency-Key across every retry and re-submit (so it is never stored twice), and a playlist without a
 * session (an MTurk preview) sends nothing. The sender says whether a post was started.
 */
export function ratingSender(store: GlimpseStore): RatingSender {
  const keys = new Map<number, string>();
  return ({ stimulusId, value, nbReplay, logs }, outcome) => {
    const { playlist } = store.getState();
    if (!playlist?.session_id || !playlist.sessionToken) {
      console.log('rating not sent: no session (MTurk preview?)');
      return false;
    }
    const key = keys.get(stimulusId) ?? newUuid();
    keys.set(stimulusId, key);
    const body = { stimuli_id: stimulusId, session_id: playlist.session_id, session_token: playlist.sessionToken, value, nbReplay, logs };
    postRating(body, key).then(
      (ack) => {
        console.log('rating stored', ack);
        outcome.stored();
      },
      (error) => {
        console.log('rating post failed', error);
        outcome.failed();
      },
    );
    return true;
  };
}
