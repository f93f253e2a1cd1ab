/**
 * The piiface run as a pure state machine (SPEC §4 "Piiface"): one image after another; each is prepared, then
 * shown until the participant moves on. A training image moves on at once (nothing is sent); a test image is saved
 * first and moves on once the server has it; a failed save shows it again so the answer can be sent again.
 *
 *   preparing ──SHOWN──▶ showing ──ANSWERED──▶ saving ──STORED──▶ next image (preparing) | done
 *                           ▲   (training: straight to the next image)  │
 *                           └────────────── FAILED ◀────────────────────┘ (shown again: a new presentation)
 */

export type FaceStatus = 'preparing' | 'showing' | 'saving' | 'done';

export interface FaceTrialState {
  index: number;
  status: FaceStatus;
  /** Presentations of the current image (a failed save shows it again). */
  plays: number;
}

export type FaceEvent = { type: 'SHOWN' } | { type: 'ANSWERED' } | { type: 'STORED' } | { type: 'FAILED' };

export interface FaceRunOptions {
  count: number;
  training: boolean;
  /** The first image to run (a resumed session goes on after the answered ones); default 0. */
  start?: number;
}

export function firstFaceTrial(options: FaceRunOptions): FaceTrialState {
  const index = options.start ?? 0;
  return { index, status: index < options.count ? 'preparing' : 'done', plays: 0 };
}

function next(state: FaceTrialState, options: FaceRunOptions): FaceTrialState {
  return state.index + 1 >= options.count ? { ...state, status: 'done' } : { index: state.index + 1, status: 'preparing', plays: 0 };
}

/** The next state; the same object when the event does not apply. */
export function faceTransition(state: FaceTrialState, event: FaceEvent, options: FaceRunOptions): FaceTrialState {
  switch (state.status) {
    case 'preparing':
      return event.type === 'SHOWN' ? { ...state, status: 'showing' } : state;
    case 'showing':
      if (event.type !== 'ANSWERED') return state;
      return options.training ? next(state, options) : { ...state, status: 'saving' };
    case 'saving':
      if (event.type === 'STORED') return next(state, options);
      if (event.type === 'FAILED') return { ...state, status: 'preparing', plays: state.plays + 1 };
      return state;
    case 'done':
      return state;
  }
}
