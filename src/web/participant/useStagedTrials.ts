import { useCallback, useEffect, useRef, useState } from 'react';
import { DEFAULT_INTERRUPTIONS, DEFAULT_SCALING, interruptedFailure, type InterruptionPolicy, type Scaling } from '../../contract/job-options.js';
import type { PlaylistStimulus } from '../../contract/playlist.js';
import type { StagedModule } from '../../protocols/types.js';
import { answerPipelineOf } from '../flow/answers.js';
import { mediaType } from '../flow/mediaLoader.js';
import type { GlimpseStore } from '../flow/store.js';
import { createViewsStore } from '../flow/viewsStore.js';
import { isStageInterrupted, isStageMediaError } from '../stage/errors.js';
import { refreshMeetsMinimum } from '../screens/eligibility/rules.js';
import type { PresentationRecord, PresentationStep, Rect, StageController } from '../stage/types.js';
import { WINDOW_RECHECK_MS, windowNeed, type WindowNeed } from './windowNeed.js';

/**
 * Runs a staged protocol's playlist on the stage, one stimulus at a time (SPEC §4 "Pair test, per stimulus",
 * generic over the module): prepare its media, play its plan, open the response view, hand the answer to the
 * answer pipeline, advance once it is stored. A failed post keeps the stimulus; the pipeline keeps its key, so
 * submitting again cannot store it twice.
 * A 3D object in inspect mode is a 'hold' step: the response view opens while it is still on screen (after the
 * object's minInspectMs), and the answer (or a replay) releases it; its camera poses go with the answer (`views`).
 */

/**
 * 'window-small': the stimulus cannot be shown at its scaling in this window; the page asks for a larger one.
 * 'interrupted': the stage stopped drawing mid-trial (a hidden page, a lost context, another screen); the trial is
 * played again from its start once drawing is steady.
 * 'refresh-low': the display now refreshes below the study's minimum (a window moved to a slower screen); the
 * trial waits until it holds again.
 */
export type TrialStatus = 'preparing' | 'window-small' | 'refresh-low' | 'playing' | 'interrupted' | 'responding' | 'saving';

export interface TrialState {
  index: number;
  status: TrialStatus;
  nbReplay: number;
  /** Kind of media the stage could not show for this stimulus, if any. */
  mediaError: 'video' | 'image' | 'model' | null;
  /** Changes on every play, so the response view is remounted (and its answer cleared) after a replay. */
  playCount: number;
  /** With status 'window-small': the window the stimulus needs. */
  windowNeed?: WindowNeed;
  /**
   * Where the objects of a step held until the answer (inspect) are on the stage, from its onset until the next
   * stimulus or a replay: the answer view must stay clear of them (they are still up, turnable, while it is open).
   */
  heldRects?: Rect[];
}

export interface StagedTrials extends TrialState {
  stimulus: PlaylistStimulus | undefined;
  answer(answer: unknown): void;
  replay(): void;
}

interface RunnerInput {
  store: GlimpseStore;
  module: StagedModule;
  params: unknown;
  stimuli: PlaylistStimulus[];
  training: boolean;
  stage: StageController | null;
  /** The study's `scaling` (absent: the default, 'integer'). */
  scaling?: Scaling;
  /** What an interrupted trial gets (job `interruptedTrials`, `interruptionReplays`). */
  interruptions?: InterruptionPolicy;
  /** The study's minimum refresh rate (job `minRefreshHz`), checked again before each trial. */
  minRefreshHz?: number;
  onDone(): void;
}

/** Kind of the media that could not be shown: a download that failed has no kind yet, its name tells it. */
function failedKind(error: unknown): 'video' | 'image' | 'model' {
  if (!isStageMediaError(error)) return 'image';
  if (error.mediaKind !== 'unknown') return error.mediaKind;
  return mediaType(error.media, null)?.kind ?? 'image';
}

/** A step that stays up while the participant answers (inspect): the answer view opens this long after its onset. */
function answerOpensAfter(step: PresentationStep | undefined): number | null {
  if (step?.end.kind !== 'hold') return null;
  return Math.max(0, ...step.items.map((item) => item.object?.minInspectMs ?? 0));
}

const FIRST: TrialState = { index: 0, status: 'preparing', nbReplay: 0, mediaError: null, playCount: 0 };

export function useStagedTrials({ store, module, params, stimuli, training, stage, scaling = DEFAULT_SCALING, interruptions = DEFAULT_INTERRUPTIONS, minRefreshHz, onDone }: RunnerInput): StagedTrials {
  // A resumed session goes on after the answered stimuli (flow.resumeAt); training always starts at its first.
  const [state, setState] = useState<TrialState>(() => ({ ...FIRST, index: training ? 0 : store.getState().flow.resumeAt }));
  /** The records of every play of the current stimulus (the first, then each replay). */
  const plays = useRef<PresentationRecord[][]>([]);
  /** Why the current stimulus could not be shown, for the answer's timing envelope. */
  const failure = useRef<string | null>(null);
  /** The play of a step held until the answer (inspect), while it runs: the answer releases it first. */
  const held = useRef<Promise<unknown> | null>(null);
  /** A replay was asked while a held step was up: its end must not reopen the answer view. */
  const replayAsked = useRef(false);
  /** The current stimulus's plays the stage interrupted. */
  const interrupted = useRef(0);
  const views = useRef(createViewsStore()).current;
  const stimulus = stimuli[state.index];

  useEffect(() => {
    store.getState().setTrial(stimulus ? { training, index: state.index, total: stimuli.length } : null);
  }, [store, stimulus, training, state.index, stimuli.length]);

  // Resumed after the last answer was stored (the page was left before the code came): nothing left to show.
  useEffect(() => {
    if (stimuli.length > 0 && state.index >= stimuli.length) onDone();
    // Only the first index can be past the end (advance() stops at the last stimulus): checked once.
  }, []);

  // Present the stimulus whenever a new play is asked for (new index or replay): status preparing/playing.
  const { index, playCount, nbReplay } = state;
  const policy = useRef(interruptions);
  policy.current = interruptions;
  useEffect(() => {
    if (!stage || !stimulus) return;
    const abort = new AbortController();
    // A replay the participant asked for (an interrupted play is played again as it was).
    const replay = nbReplay > 0;
    let answerTimer: ReturnType<typeof setTimeout> | undefined;
    replayAsked.current = false;
    void (async () => {
      let mediaError: TrialState['mediaError'] = null;
      try {
        await stage.prepare(module.mediaOf(stimulus, params));
        // After an interruption: laid out once the stage draws again, for the canvas the play starts on.
        await stage.whenDrawable();
        if (abort.signal.aborted) return;
        const plan = () => {
          const canvas = { ...stage.size(), pixelRatio: stage.devicePixels().ratio, scaling };
          return module.plan(stimulus, { params, canvas, mediaSize: (m) => stage.mediaSize(m), replay });
        };
        let steps = plan();
        // Too small a window (or one made smaller, or moved to a screen with another scaling): wait, asking for a
        // larger one, and lay out again. Nothing is shown shrunk.
        for (let need = windowNeed(steps, stage, window); need !== null; need = windowNeed(steps, stage, window)) {
          const shown = need;
          setState((s) => ({ ...s, status: 'window-small', windowNeed: shown }));
          await new Promise((resolve) => setTimeout(resolve, WINDOW_RECHECK_MS));
          if (abort.signal.aborted) return;
          steps = plan();
        }
        // A window moved to a slower screen: the study's refresh minimum no longer holds; wait until it does.
        while (!refreshMeetsMinimum(minRefreshHz, stage.refreshMs)) {
          setState((s) => ({ ...s, status: 'refresh-low' }));
          await new Promise((resolve) => setTimeout(resolve, WINDOW_RECHECK_MS));
          if (abort.signal.aborted) return;
        }
        // After an interruption, its message stays up until the replay draws its first step.
        setState((s) => ({ ...s, status: s.status === 'interrupted' ? 'interrupted' : 'playing', windowNeed: undefined }));
        const playing = stage.play(steps, {
          signal: abort.signal,
          onOnset: (i) => {
            if (i === 0) setState((s) => (s.status === 'interrupted' ? { ...s, status: 'playing' } : s));
            const wait = answerOpensAfter(steps[i]);
            if (wait === null) return;
            held.current = playing.catch(() => undefined);
            const heldRects = steps[i]!.items.map((item) => item.rect);
            answerTimer = setTimeout(() => setState((s) => (s.status === 'playing' ? { ...s, status: 'responding', heldRects } : s)), wait);
          },
          onCameraPose: (sample) => views.getState().append(playCount, sample),
        });
        plays.current.push(await playing);
      } catch (error) {
        if (abort.signal.aborted) return;
        if (isStageInterrupted(error)) {
          // What was drawn before it goes with the answer (its last record names the interruption).
          if (error.records.length > 0) plays.current.push(error.records);
          interrupted.current += 1;
          held.current = null;
          clearTimeout(answerTimer);
          const unplayed = interruptedFailure(interrupted.current, error.interruption, policy.current);
          if (unplayed === null) {
            console.log(`the stage was interrupted (${error.interruption}): playing the stimulus again`);
            setState((s) => ({ ...s, status: 'interrupted', playCount: s.playCount + 1, heldRects: undefined }));
            return;
          }
          // Not played through: answered, and excluded as a technical fault by the quality rules (mediaError).
          failure.current = unplayed;
        } else {
          console.log('the stimulus could not be shown', error);
          if (isStageMediaError(error)) plays.current.push(error.records);
          mediaError = failedKind(error);
          failure.current = error instanceof Error ? error.message : String(error);
        }
      }
      held.current = null;
      clearTimeout(answerTimer);
      // An answer given while a held step was up is already being saved: it keeps 'saving'.
      if (!abort.signal.aborted && !replayAsked.current) setState((s) => ({ ...s, status: s.status === 'saving' ? 'saving' : 'responding', mediaError }));
    })();
    return () => {
      clearTimeout(answerTimer);
      abort.abort();
    };
  }, [stage, stimulus, index, playCount, nbReplay, module, params, views]);

  /** Ends a held step (inspect) and waits for its records; nothing to wait for otherwise. */
  const releaseHeld = useCallback(async () => {
    const play = held.current;
    if (!play) return;
    stage?.release();
    await play;
  }, [stage]);

  const advance = useCallback(() => {
    plays.current = [];
    failure.current = null;
    interrupted.current = 0;
    views.getState().reset();
    if (state.index + 1 >= stimuli.length) {
      onDone();
      return;
    }
    setState((s) => ({ ...FIRST, index: s.index + 1 }));
  }, [state.index, stimuli.length, onDone, views]);

  const answer = useCallback(
    (value: unknown) => {
      if (!stimulus || state.status !== 'responding') return;
      setState((s) => ({ ...s, status: 'saving' }));
      void releaseHeld()
        .then(() =>
          answerPipelineOf(store).rating({
            stimulusId: stimulus.stimuliId,
            value: module.value(value, stimulus),
            nbReplay: state.nbReplay,
            plays: plays.current,
            refreshMs: stage?.refreshMs,
            refresh: stage?.refresh,
            mediaError: failure.current,
            views: views.getState().record(),
          }),
        )
        .then((outcome) => {
          // SPEC §4 step 6: a failed post is only logged; the test stays on this stimulus and can be submitted again.
          if (outcome === 'stored' || outcome === 'training') advance();
          else setState((s) => ({ ...s, status: 'responding' }));
        });
    },
    [store, stimulus, state.status, state.nbReplay, stage, module, advance, releaseHeld, views],
  );

  const replay = useCallback(() => {
    if (state.status !== 'responding' || replayAsked.current) return;
    failure.current = null;
    replayAsked.current = true;
    void releaseHeld().then(() => setState((s) => ({ ...s, status: 'playing', nbReplay: s.nbReplay + 1, mediaError: null, playCount: s.playCount + 1, heldRects: undefined })));
  }, [state.status, releaseHeld]);

  return { ...state, stimulus, answer, replay };
}
