/**
 * The bubble test's per-stimulus sequence (SPEC §4 "Bubble test") as a pure state machine:
 *
 *   centering ──CENTERED──▶ ready (media A shown, waiting for the click) ──CLICKED──▶ playing
 *   playing ──PLAYED──▶ rating            (free task: straight to the decision below)
 *   rating ──RATED──▶ decision:
 *       repetitions done < nr   → centering ('repeat': "Ready for a repetition?"), replay
 *       else if rp              → explore ("Did you need to explore more the sequence?")
 *       else                    → next stimulus (replay count back to 0), or done after the last
 *   explore ──EXPLORE_YES──▶ centering ('explore'), replay;  ──EXPLORE_NO──▶ next stimulus / done
 *   ready / playing ──INTERRUPTED──▶ centering ('interrupted'): the stage stopped drawing (a hidden page, a lost
 *       context, another screen); the same play again from its start, not a replay of the participant's
 *
 * `replays` counts the replays of the current stimulus (0 on its first play); it is the rating's nbReplay and
 * the screening_no of the mouse log.
 */

export interface TrialOptions {
  /** Stimuli in this run (training or test). */
  count: number;
  /** nr: forced repetitions. */
  repetitions: number;
  /** rp: the exploration question after the repetitions. */
  repetitionPossible: boolean;
  /** ft: no rating. */
  freeTask: boolean;
  /** The first stimulus to run (a resumed session goes on after the answered ones); default 0. */
  start?: number;
}

export type CenteringReason = 'first' | 'repeat' | 'explore' | 'interrupted';

export type TrialStep =
  | { kind: 'centering'; reason: CenteringReason }
  | { kind: 'ready' }
  | { kind: 'playing' }
  | { kind: 'rating' }
  | { kind: 'explore' }
  | { kind: 'done' };

export interface TrialState {
  index: number;
  replays: number;
  step: TrialStep;
}

export type TrialEvent =
  | { type: 'CENTERED' }
  | { type: 'CLICKED' }
  | { type: 'PLAYED' }
  | { type: 'RATED' }
  | { type: 'EXPLORE_YES' }
  | { type: 'EXPLORE_NO' }
  | { type: 'INTERRUPTED' };

export function firstTrial(options: TrialOptions): TrialState {
  const index = options.start ?? 0;
  return index < options.count ? { index, replays: 0, step: { kind: 'centering', reason: 'first' } } : { index, replays: 0, step: { kind: 'done' } };
}

function next(state: TrialState, options: TrialOptions): TrialState {
  if (state.index + 1 >= options.count) return { ...state, step: { kind: 'done' } };
  return { index: state.index + 1, replays: 0, step: { kind: 'centering', reason: 'first' } };
}

function replay(state: TrialState, reason: CenteringReason): TrialState {
  return { ...state, replays: state.replays + 1, step: { kind: 'centering', reason } };
}

/** After the answer (or, in free task, after the play): repeat, ask about exploring, or move on. */
function afterAnswer(state: TrialState, options: TrialOptions): TrialState {
  if (state.replays < options.repetitions) return replay(state, 'repeat');
  if (options.repetitionPossible) return { ...state, step: { kind: 'explore' } };
  return next(state, options);
}

/** The next state; the same object when the event does not apply in this step. */
export function trialTransition(state: TrialState, event: TrialEvent, options: TrialOptions): TrialState {
  switch (state.step.kind) {
    case 'centering':
      return event.type === 'CENTERED' ? { ...state, step: { kind: 'ready' } } : state;
    case 'ready':
      if (event.type === 'INTERRUPTED') return { ...state, step: { kind: 'centering', reason: 'interrupted' } };
      return event.type === 'CLICKED' ? { ...state, step: { kind: 'playing' } } : state;
    case 'playing':
      if (event.type === 'INTERRUPTED') return { ...state, step: { kind: 'centering', reason: 'interrupted' } };
      if (event.type !== 'PLAYED') return state;
      return options.freeTask ? afterAnswer(state, options) : { ...state, step: { kind: 'rating' } };
    case 'rating':
      return event.type === 'RATED' ? afterAnswer(state, options) : state;
    case 'explore':
      if (event.type === 'EXPLORE_YES') return replay(state, 'explore');
      if (event.type === 'EXPLORE_NO') return next(state, options);
      return state;
    case 'done':
      return state;
  }
}
