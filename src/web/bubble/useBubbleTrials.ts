import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { BubblePlaylistStimulus } from '../../contract/playlist.js';
import { postRating } from '../flow/api.js';
import type { GlimpseStore } from '../flow/store.js';
import { newUuid } from '../flow/uuid.js';
import { windowSizeLog } from '../flow/sizeLog.js';
import type { BubbleStageController } from '../stage/bubble/types.js';
import { isStageMediaError } from '../stage/errors.js';
import type { BubbleQuery } from './bubbleQuery.js';
import { toStimulus, type BubbleLayout, type Size } from './geometry.js';
import { ratingBody, screeningBody, type SessionIds } from './payloads.js';
import { imageDisplayMs, layoutOf, playPlan, playSteps, viewOf, type MediaKind, type PlayPlan } from './presentation.js';
import type { SampleStore } from './sampleStore.js';
import { postBubbleScreening } from './screeningApi.js';
import { firstTrial, trialTransition, type TrialEvent, type TrialOptions, type TrialState } from './trialMachine.js';

/**
 * Runs the bubble stimuli of one Test phase (training or test) through the trial machine (trialMachine.ts) and
 * performs its effects: show media A and wait for the click, play A [pause B] on the bubble stage while the
 * pointer samples are recorded, post the mouse log, post the rating, replay or move on. Training posts nothing.
 */

/** Client px -> stimulus px of the media being recorded (set by the runner, used by the pointer listener). */
export type StimulusMapping = { current: (clientX: number, clientY: number) => { x: number; y: number } };
/** Where the canvas is (client px) and where the media is on it; the page places the stage host there. */
export type LayoutRef = { current: BubbleLayout | null };

/** What the bubble page hands its Test phase: the stage, the pointer samples, the geometry refs, the query. */
export interface BubbleStageWiring {
  controller: BubbleStageController | null;
  samples: SampleStore;
  mapping: StimulusMapping;
  layout: LayoutRef;
  onArea(area: BubbleLayout['area'] | null): void;
  query: BubbleQuery;
  freeTask: boolean;
}

export interface BubbleTrialsInput extends BubbleStageWiring {
  store: GlimpseStore;
  stimuli: BubblePlaylistStimulus[];
  training: boolean;
  onDone(): void;
}

export interface BubbleTrials {
  trial: TrialState;
  stimulus: BubblePlaylistStimulus | undefined;
  plan: PlayPlan | null;
  /** The stimulus is on screen and a click starts it. */
  awaitingClick: boolean;
  /** The pause between A and B (or after the media in free task): the mark is shown at the centre. */
  pausing: boolean;
  /** A rating is being posted. */
  busy: boolean;
  mediaError: MediaKind | null;
  send(event: TrialEvent): void;
  answer(value: number): void;
}

const viewport = (): Size => ({ width: window.innerWidth, height: window.innerHeight });

export function useBubbleTrials(input: BubbleTrialsInput): BubbleTrials {
  const { store, controller, samples, mapping, layout, onArea, query, freeTask, stimuli, training, onDone } = input;
  const options: TrialOptions = useMemo(
    () => ({ count: stimuli.length, repetitions: query.repetitions, repetitionPossible: query.repetitionPossible, freeTask }),
    [stimuli.length, query.repetitions, query.repetitionPossible, freeTask],
  );
  const [trial, setTrial] = useState<TrialState>(() => firstTrial(options));
  const [awaitingClick, setAwaitingClick] = useState(false);
  const [pausing, setPausing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [mediaError, setMediaError] = useState<MediaKind | null>(null);
  const ratingKey = useRef<{ play: string; key: string } | null>(null);
  const stimulus = stimuli[trial.index];
  const send = useCallback((event: TrialEvent) => setTrial((s) => trialTransition(s, event, options)), [options]);

  const plan = useMemo(() => {
    if (!stimulus) return null;
    const kindOf = (source: string): MediaKind => store.getState().media?.get(source)?.kind ?? 'image';
    return playPlan(stimulus, query, kindOf);
  }, [stimulus, query, store]);

  const session = (): SessionIds | null => {
    const { playlist } = store.getState();
    return playlist?.session_id && playlist.sessionToken ? { session_id: playlist.session_id, session_token: playlist.sessionToken } : null;
  };

  const step = trial.step.kind;
  const playId = `${trial.index}:${trial.replays}`;

  useEffect(() => {
    if (step === 'done') onDone();
  }, [step, onDone]);

  // Between plays the canvas is blank and nothing is recorded.
  useEffect(() => {
    if (step !== 'centering') return;
    samples.getState().stopRecording();
    controller?.clear();
  }, [step, controller, samples]);

  // Ready: media A blurred with the window at the pointer; the first primary press starts it (SPEC §4).
  useEffect(() => {
    if (step !== 'ready' || !controller || !plan) return;
    let cancelled = false;
    const firstMedia = plan.media[0]!;
    const placed = layoutOf(plan, firstMedia, viewport());
    layout.current = placed;
    onArea(placed.area);
    const onPress = (event: PointerEvent) => {
      if (!event.isPrimary || event.button !== 0) return;
      window.removeEventListener('pointerdown', onPress);
      const s = samples.getState();
      s.reset();
      mapping.current = (x, y) => toStimulus(x, y, placed, firstMedia.media);
      // SPEC §4: the click starts media A and restarts its recording; t is counted from the click.
      s.startRecording('mediaA', event.timeStamp);
      setAwaitingClick(false);
      send({ type: 'CLICKED' });
    };
    void (async () => {
      try {
        await controller.prepare(plan.media.map((m) => viewOf(m, layoutOf(plan, m, viewport()), query)));
        if (cancelled) return;
        await controller.show(viewOf(firstMedia, placed, query));
      } catch (error) {
        console.log('the stimulus could not be shown', error);
        if (isStageMediaError(error)) setMediaError(error.mediaKind === 'video' ? 'video' : 'image');
      }
      if (cancelled) return;
      setAwaitingClick(true);
      window.addEventListener('pointerdown', onPress);
    })();
    return () => {
      cancelled = true;
      window.removeEventListener('pointerdown', onPress);
      setAwaitingClick(false);
    };
  }, [step, playId, controller, plan, query, layout, mapping, onArea, samples, send]);

  // Playing: A [pause B] on the frame clock; B's samples count from B's first frame.
  useEffect(() => {
    if (step !== 'playing' || !controller || !plan) return;
    const abort = new AbortController();
    const placed = plan.media.map((m) => layoutOf(plan, m, viewport()));
    const views = plan.media.map((m, i) => viewOf(m, placed[i]!, query));
    const steps = playSteps(plan, views, { displayMs: imageDisplayMs(query, store.getState().job?.displayMs), pauseMs: query.pauseMs, freeTask });
    const onOnset = (_index: number, label: string, timestampMs: number) => {
      const s = samples.getState();
      if (label === 'pause') {
        s.stopRecording();
        setPausing(true);
      } else if (label === 'B') {
        const b = plan.media[1]!;
        mapping.current = (x, y) => toStimulus(x, y, placed[1]!, b.media);
        layout.current = placed[1]!;
        s.startRecording('mediaB', timestampMs);
        setPausing(false);
      }
    };
    void (async () => {
      try {
        await controller.play(steps, { signal: abort.signal, onOnset });
      } catch (error) {
        if (abort.signal.aborted) return;
        console.log('the stimulus could not be played', error);
        if (isStageMediaError(error)) setMediaError(error.mediaKind === 'video' ? 'video' : 'image');
      }
      if (abort.signal.aborted) return;
      samples.getState().stopRecording();
      setPausing(false);
      const ids = session();
      if (!training && ids && stimulus) {
        void postBubbleScreening(screeningBody(stimulus.stimuli_id, ids, samples.getState().samples(), trial.replays), newUuid());
      } else if (!training) {
        console.log('mouse log not sent: no session (MTurk preview?)');
      }
      send({ type: 'PLAYED' });
    })();
    return () => abort.abort();
    // One play per (stimulus, replay): the other values are read when the play starts or ends.
  }, [step, playId, controller, plan]);

  const answer = useCallback(
    (value: number) => {
      if (step !== 'rating' || busy || !stimulus) return;
      // SPEC §4: training sends no data.
      if (training) return send({ type: 'RATED' });
      const ids = session();
      if (!ids) {
        console.log('rating not sent: no session (MTurk preview?)');
        return;
      }
      // One key per answer of this play, reused if the participant submits again after a failure.
      if (ratingKey.current?.play !== playId) ratingKey.current = { play: playId, key: newUuid() };
      // SPEC §3: the window sizes and the fullscreen flag; then the order in task, and whether a media failed.
      const logs = windowSizeLog(window, { oit: String(query.orderInTask), ...(mediaError ? { media: 'missing' } : {}) });
      setBusy(true);
      postRating(ratingBody(stimulus.stimuli_id, ids, value, trial.replays, logs), ratingKey.current.key).then(
        (ack) => {
          console.log('rating stored', ack);
          setBusy(false);
          send({ type: 'RATED' });
        },
        (error) => {
          // SPEC §8: only logged; the participant stays on this answer.
          console.log('rating post failed', error);
          setBusy(false);
        },
      );
    },
    [step, busy, stimulus, training, playId, query.orderInTask, trial.replays, mediaError, send],
  );

  useEffect(() => {
    if (step === 'centering') setMediaError(null);
  }, [step]);

  return { trial, stimulus, plan, awaitingClick, pausing, busy, mediaError, send, answer };
}
