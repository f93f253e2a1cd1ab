import { useCallback, useEffect, useRef, useState } from 'react';
import type { PlaylistStimulus } from '../../contract/playlist.js';
import { mediaType } from '../flow/mediaLoader.js';
import type { GlimpseStore } from '../flow/store.js';
import { ratingSender } from '../flow/ratingSender.js';
import { windowSizes } from '../flow/windowInfo.js';
import type { AnyProtocolModule } from '../protocols/types.js';
import { isStageMediaError } from '../stage/errors.js';
import type { PresentationRecord, StageController } from '../stage/types.js';
import { ratingLogsText } from './ratingLogs.js';

/**
 * Runs a playlist on the stage, one stimulus at a time (SPEC §4 "Pair test, per stimulus", generic over the
 * protocol module): prepare its media, play its plan, open the response view, post the answer, advance.
 * A failed post keeps the stimulus; its Idempotency-Key is kept, so submitting again cannot store it twice.
 */

export type TrialStatus = 'preparing' | 'playing' | 'responding' | 'saving';

export interface TrialState {
  index: number;
  status: TrialStatus;
  nbReplay: number;
  /** Kind of media the stage could not show for this stimulus, if any. */
  mediaError: 'video' | 'image' | null;
  /** Changes on every play, so the response view is remounted (and its answer cleared) after a replay. */
  playCount: number;
}

export interface TrialRunner extends TrialState {
  stimulus: PlaylistStimulus | undefined;
  answer(answer: unknown): void;
  replay(): void;
}

interface RunnerInput {
  store: GlimpseStore;
  module: AnyProtocolModule;
  params: unknown;
  stimuli: PlaylistStimulus[];
  training: boolean;
  controller: StageController | null;
  onDone(): void;
}

/** Kind of the media that could not be shown: a download that failed has no kind yet, its name tells it. */
function failedKind(error: unknown): 'video' | 'image' {
  if (!isStageMediaError(error)) return 'image';
  if (error.mediaKind !== 'unknown') return error.mediaKind;
  return mediaType(error.media, null)?.kind ?? 'image';
}

const FIRST: TrialState = { index: 0, status: 'preparing', nbReplay: 0, mediaError: null, playCount: 0 };

export function useTrialRunner({ store, module, params, stimuli, training, controller, onDone }: RunnerInput): TrialRunner {
  const [state, setState] = useState<TrialState>(FIRST);
  const records = useRef<PresentationRecord[][]>([]);
  // One sender per page: it keeps each stimulus's Idempotency-Key.
  const [sendRating] = useState(() => ratingSender(store));
  /** Why the current stimulus could not be shown, for the rating's logs. */
  const failure = useRef<string | null>(null);
  const stimulus = stimuli[state.index];

  // Present the stimulus whenever a new play is asked for (new index or replay): status preparing/playing.
  const { index, playCount } = state;
  useEffect(() => {
    if (!controller || !stimulus) return;
    const abort = new AbortController();
    const replay = playCount > 0;
    void (async () => {
      let mediaError: TrialState['mediaError'] = null;
      try {
        await controller.prepare(module.mediaOf(stimulus, params));
        if (abort.signal.aborted) return;
        setState((s) => ({ ...s, status: 'playing' }));
        const steps = module.plan(stimulus, {
          params,
          canvas: controller.size(),
          mediaSize: (m) => controller.mediaSize(m),
          replay,
          topBand: 0,
        });
        records.current.push(await controller.play(steps, abort.signal));
      } catch (error) {
        if (abort.signal.aborted) return;
        console.log('the stimulus could not be shown', error);
        if (isStageMediaError(error)) records.current.push(error.records);
        mediaError = failedKind(error);
        failure.current = error instanceof Error ? error.message : String(error);
      }
      if (!abort.signal.aborted) setState((s) => ({ ...s, status: 'responding', mediaError }));
    })();
    return () => abort.abort();
  }, [controller, stimulus, index, playCount, module, params]);

  const advance = useCallback(() => {
    records.current = [];
    failure.current = null;
    if (state.index + 1 >= stimuli.length) {
      onDone();
      return;
    }
    setState((s) => ({ ...FIRST, index: s.index + 1 }));
  }, [state.index, stimuli.length, onDone]);

  const answer = useCallback(
    (value: unknown) => {
      if (!stimulus || state.status !== 'responding') return;
      // Training answers are not stored (SPEC §4: training sends no data).
      if (training) return advance();
      const logs = ratingLogsText({
        v: 1,
        presentations: records.current,
        refreshMs: controller && Number.isFinite(controller.refreshMs) ? controller.refreshMs : null,
        timeOrigin: performance.timeOrigin,
        window: windowSizes(),
        ...(failure.current ? { mediaError: failure.current } : {}),
      });
      const rating = { stimulusId: stimulus.stimuliId, value: module.value(value, stimulus), nbReplay: state.nbReplay, logs };
      // SPEC §4 step 6: a failed post is only logged; the test stays on this stimulus and the answer can be submitted again.
      const failed = () => setState((s) => ({ ...s, status: 'responding' }));
      if (sendRating(rating, { stored: advance, failed })) setState((s) => ({ ...s, status: 'saving' }));
    },
    [stimulus, state.status, state.nbReplay, training, sendRating, controller, module, advance],
  );

  const replay = useCallback(() => {
    if (state.status !== 'responding') return;
    failure.current = null;
    setState((s) => ({ ...s, status: 'playing', nbReplay: s.nbReplay + 1, mediaError: null, playCount: s.playCount + 1 }));
  }, [state.status]);

  return { ...state, stimulus, answer, replay };
}
