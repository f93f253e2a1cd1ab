import { useCallback, useEffect, useMemo } from 'react';
import { inTraining } from '../flow/phases.js';
import { useGlimpse } from '../flow/StoreContext.js';

/** A protocol's reader of playlist stimuli: its typed list, or null when the list does not hold its stimuli. */
export type StimuliReader<T> = (list: readonly unknown[]) => T[] | null;

export interface RunStimuli<T> {
  /** This Test phase is the training run. */
  training: boolean;
  /** The run's stimuli (the playlist's training or test list) as the protocol reads them; null: unreadable. */
  stimuli: T[] | null;
  /** Ends the Test phase (TEST_DONE). */
  onDone(): void;
}

/**
 * For a protocol with its own Test phase (bubble, piiface): the stimuli of the current run, training or test.
 * `read` must be stable (a module function).
 */
export function useRunStimuli<T>(read: StimuliReader<T>): RunStimuli<T> {
  const playlist = useGlimpse((s) => s.playlist);
  const training = useGlimpse((s) => inTraining(s.flow));
  const dispatch = useGlimpse((s) => s.dispatch);
  const stimuli = useMemo(() => read((training ? playlist?.stimulis_training : playlist?.stimulis) ?? []), [read, training, playlist]);
  const onDone = useCallback(() => dispatch({ type: 'TEST_DONE' }), [dispatch]);
  return { training, stimuli, onDone };
}

/**
 * Ends the journey as CONFIG_INCOMPATIBLE when the playlist does not hold the protocol's stimuli; calls `onEmpty`
 * (when given) for an empty run. Call it after the trial hook: effects run in order, and the trial hook's own end
 * comes first.
 */
export function useUnreadableStimuliEnd(protocol: string, stimuli: readonly unknown[] | null, onEmpty?: () => void): void {
  const dispatch = useGlimpse((s) => s.dispatch);
  useEffect(() => {
    if (stimuli === null) {
      console.log(`the playlist does not hold ${protocol} stimuli`);
      dispatch({ type: 'CONFIG_INCOMPATIBLE' });
    } else if (stimuli.length === 0) onEmpty?.();
  }, [protocol, stimuli, onEmpty, dispatch]);
}
