/**
 * Bodies of the bubble page's posts (SPEC §3): the mouse-log screening after each play and the rating.
 * Pure; unit-tested. The rating's `logs` is the shared size text (flow/sizeLog.ts) plus `oit:{order in task}`.
 */
import type { BubbleScreeningBody, MouseSample, RatingBody } from '../../contract/payloads.js';

export interface SessionIds {
  session_id: number;
  session_token: string;
}

export function screeningBody(stimulusId: number, session: SessionIds, samples: { mediaA: MouseSample[]; mediaB: MouseSample[] }, screeningNo: number): BubbleScreeningBody {
  return {
    stimuli_id: stimulusId,
    session_id: session.session_id,
    session_token: session.session_token,
    mouse_logs: { mediaA: samples.mediaA, mediaB: samples.mediaB },
    screening_no: screeningNo,
    logs: null,
  };
}

export type PairChoice = 'first' | 'last';

/** SPEC §5: the first option gives 0, the other 1. */
export function pairValue(choice: PairChoice): number {
  return choice === 'first' ? 0 : 1;
}

/** SPEC §5: the bubble emotion value is the selected index plus 1. */
export function emotionValue(index: number): number {
  return index + 1;
}

export function ratingBody(stimulusId: number, session: SessionIds, value: number, nbReplay: number, logs: string): RatingBody {
  return { stimuli_id: stimulusId, session_id: session.session_id, session_token: session.session_token, value, nbReplay, logs };
}
