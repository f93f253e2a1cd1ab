import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { DEFAULT_INTERRUPTIONS, DEFAULT_SCALING, interruptedFailure, type InterruptionPolicy, type Scaling } from '../../contract/job-options.js';
import type { BubblePlaylistStimulus } from '../../contract/playlist.js';
import { answerPipelineOf } from '../../web/flow/answers.js';
import type { GlimpseStore } from '../../web/flow/store.js';
import { isStageInterrupted, isStageMediaError } from '../../web/stage/errors.js';
import type { PresentationRecord, StageController } from '../../web/stage/types.js';
import { WINDOW_RECHECK_MS, windowNeedFor, type WindowNeed } from '../../web/participant/windowNeed.js';
import type { BubbleQuery } from './bubbleQuery.js';
import { mediaCentre, toStimulus, type BubbleLayout } from './geometry.js';
import { imageDisplayMs, itemOf, layoutOf, playPlan, playSteps, type MediaKind, type PlayPlan } from './presentation.js';
import type { SampleStore } from './sampleStore.js';
import { firstTrial, trialTransition, type TrialEvent, type TrialOptions, type TrialState } from './trialMachine.js';

/**
 * Runs the bubble stimuli of one Test phase (training or test) through the trial machine (trialMachine.ts) and
 * performs its effects: one stage play per presentation (A waiting for the click, A [pause B]) while the pointer
 * samples are recorded, the mouse log and its timing handed to the answer pipeline after the play, then the rating
 * with the timing of every play of the stimulus. Training sends nothing (the pipeline's rule).
 */

/** Client px -> stimulus px of the media being recorded (set by the runner, used by the pointer listener). */
export type StimulusMapping = { current: (clientX: number, clientY: number) => { x: number; y: number } };

export interface BubbleTrialsInput {
  store: GlimpseStore;
  stage: StageController | null;
  samples: SampleStore;
  mapping: StimulusMapping;
  query: BubbleQuery;
  freeTask: boolean;
  stimuli: BubblePlaylistStimulus[];
  training: boolean;
  /** The study's `scaling` (absent: the default, 'integer'). */
  scaling?: Scaling;
  /** What an interrupted play gets (job `interruptedTrials`, `interruptionReplays`). */
  interruptions?: InterruptionPolicy;
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
  /** Where the centering mark goes: the centre of media A (client px), null without a stage. */
  centre: { x: number; y: number } | null;
  /** The window is too small for the stimulus at the study's scaling: what it needs (null: it fits). */
  windowNeed: WindowNeed | null;
  send(event: TrialEvent): void;
  answer(value: number): void;
}

export function useBubbleTrials(input: BubbleTrialsInput): BubbleTrials {
  const { store, stage, samples, mapping, query, freeTask, stimuli, training, scaling = DEFAULT_SCALING, interruptions = DEFAULT_INTERRUPTIONS, onDone } = input;
  const start = training ? 0 : store.getState().flow.resumeAt;
  const options: TrialOptions = useMemo(
    () => ({ count: stimuli.length, repetitions: query.repetitions, repetitionPossible: query.repetitionPossible, freeTask, start }),
    [stimuli.length, query.repetitions, query.repetitionPossible, freeTask, start],
  );
  const [trial, setTrial] = useState<TrialState>(() => firstTrial(options));
  const [awaitingClick, setAwaitingClick] = useState(false);
  const [pausing, setPausing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [mediaError, setMediaError] = useState<MediaKind | null>(null);
  /** The records of every play of the current stimulus (the first, then each repetition or replay). */
  const plays = useRef<PresentationRecord[][]>([]);
  /** The play in progress: one per (stimulus, replay), running from 'ready' to its end whatever the step. */
  const running = useRef<{ id: string; abort: AbortController } | null>(null);
  /** Plays of the current stimulus the stage interrupted, and why the answer is not a full play when they ran out. */
  const interrupted = useRef({ count: 0, failure: null as string | null });
  const policy = useRef(interruptions);
  policy.current = interruptions;
  const stimulus = stimuli[trial.index];
  const send = useCallback((event: TrialEvent) => setTrial((s) => trialTransition(s, event, options)), [options]);

  const plan = useMemo(() => {
    if (!stimulus) return null;
    const kindOf = (source: string): MediaKind => (store.getState().media?.get(source)?.kind === 'video' ? 'video' : 'image');
    return playPlan(stimulus, query, kindOf);
  }, [stimulus, query, store]);

  const step = trial.step.kind;
  const playId = `${trial.index}:${trial.replays}`;
  /** Where each media of the play goes now: in device pixels at the study's scaling, at the file's own size. */
  const layoutsNow = useCallback((): BubbleLayout[] | null => {
    if (!stage || !plan) return null;
    const canvas = stage.clientRect();
    const ratio = stage.devicePixels().ratio;
    return plan.media.map((m) => layoutOf(plan, m, canvas, { scaling, ratio, natural: naturalSize(stage, m.media.source) }));
  }, [stage, plan, scaling]);
  const [centre, setCentre] = useState<{ x: number; y: number } | null>(null);
  const [windowNeed, setWindowNeed] = useState<WindowNeed | null>(null);

  // While the participant centres the pointer: the media are prepared (their sizes known), and the layout is
  // measured again every 250 ms, so the mark follows a resized window, and a window too small for the stimulus at
  // its scaling gets the message instead of the gate (never a shrunken stimulus).
  useEffect(() => {
    if (step !== 'centering' || !stage || !plan) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const measure = () => {
      if (stopped) return;
      const placed = layoutsNow()!;
      const next = mediaCentre(placed[0]!);
      setCentre((c) => (c && c.x === next.x && c.y === next.y ? c : next));
      const need = windowNeedFor(
        placed.flatMap((l) => (l.pixels && !l.pixels.fits ? [l.needs!] : [])),
        stage,
        window,
      );
      setWindowNeed((w) => (JSON.stringify(w) === JSON.stringify(need) ? w : need));
      timer = setTimeout(measure, WINDOW_RECHECK_MS);
    };
    // A media that cannot be prepared fails its play, as before; the layout then takes the nominal size.
    void stage
      .prepare(plan.media.map((m) => m.media.source))
      .catch(() => undefined)
      .then(measure);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [step, stage, plan, layoutsNow]);

  useEffect(() => {
    store.getState().setTrial(stimulus ? { training, index: trial.index, total: stimuli.length } : null);
  }, [store, stimulus, training, trial.index, stimuli.length]);

  useEffect(() => {
    if (step === 'done') onDone();
  }, [step, onDone]);

  // Between plays nothing is recorded and the previous stimulus's plays are forgotten when it changes.
  useEffect(() => {
    if (step !== 'centering') return;
    samples.getState().stopRecording();
    // An interrupted play is played again: its records stay with the answer.
    if (trial.step.kind === 'centering' && trial.step.reason === 'interrupted') return;
    setMediaError(null);
    if (trial.replays === 0) {
      plays.current = [];
      interrupted.current = { count: 0, failure: null };
    }
  }, [step, trial.replays, samples]);

  // Ready: one play of the stimulus starts with media A blurred, the window at the pointer; the first primary press
  // starts it (SPEC §4) and restarts the recording (t counts from the click); B's samples count from B's first frame.
  useEffect(() => {
    if (step !== 'ready' || !stage || !plan || running.current?.id === playId) return;
    const abort = new AbortController();
    running.current = { id: playId, abort };
    const placed = layoutsNow()!;
    const items = plan.media.map((m, i) => itemOf(m, placed[i]!, query));
    const steps = playSteps(plan, items, { displayMs: imageDisplayMs(query, store.getState().job?.displayMs), pauseMs: query.pauseMs, freeTask });
    const onPress = (event: PointerEvent) => {
      if (!event.isPrimary || event.button !== 0) return;
      window.removeEventListener('pointerdown', onPress);
      const s = samples.getState();
      s.reset();
      mapping.current = (x, y) => toStimulus(x, y, placed[0]!, plan.media[0]!.media);
      s.startRecording('mediaA', event.timeStamp);
      stage.click(event.timeStamp);
      setAwaitingClick(false);
      send({ type: 'CLICKED' });
    };
    const onOnset = (_index: number, label: string, timestampMs: number) => {
      const s = samples.getState();
      if (label === 'ready') {
        setAwaitingClick(true);
        window.addEventListener('pointerdown', onPress);
      } else if (label === 'pause') {
        s.stopRecording();
        setPausing(true);
      } else if (label === 'B') {
        mapping.current = (x, y) => toStimulus(x, y, placed[1]!, plan.media[1]!.media);
        s.startRecording('mediaB', timestampMs);
        setPausing(false);
      }
    };
    void (async () => {
      let records: PresentationRecord[] = [];
      let failure: string | null = null;
      try {
        records = await stage.play(steps, { signal: abort.signal, onOnset });
      } catch (error) {
        if (abort.signal.aborted) return;
        if (isStageInterrupted(error)) {
          // The stage stopped drawing (docs/timing.md "When the stage cannot draw"): the play starts again from its
          // centering while the study's replays last, what was drawn kept with the answer.
          const unplayed = interruptedFailure(++interrupted.current.count, error.interruption, policy.current);
          if (unplayed === null) {
            console.log(`the stage was interrupted (${error.interruption}): playing the stimulus again`);
            plays.current.push(error.records);
            window.removeEventListener('pointerdown', onPress);
            samples.getState().stopRecording();
            setAwaitingClick(false);
            setPausing(false);
            running.current = null;
            send({ type: 'INTERRUPTED' });
            return;
          }
          // Not played through: posted and answered as it was, excluded as a technical fault by the quality rules.
          records = error.records;
          failure = interrupted.current.failure = unplayed;
        } else {
          console.log('the stimulus could not be played', error);
          if (isStageMediaError(error)) {
            records = error.records;
            setMediaError(error.mediaKind === 'video' ? 'video' : 'image');
          }
          failure = error instanceof Error ? error.message : String(error);
        }
        // A media that cannot be shown never gets its click: go on without it.
        window.removeEventListener('pointerdown', onPress);
        setAwaitingClick(false);
        send({ type: 'CLICKED' });
      }
      if (abort.signal.aborted) return;
      // 'fit': the factor the layout shrank the media by, with each media step's timing (exact layouts say it in
      // each record's items: scale, filter, device rectangle).
      if (!placed[0]!.pixels) for (const record of records) if (record.media.length > 0) record.scale = placed[0]!.scale;
      plays.current.push(records);
      samples.getState().stopRecording();
      setPausing(false);
      if (stimulus) {
        void answerPipelineOf(store).screening({
          stimulusId: stimulus.stimuli_id,
          screeningNo: trial.replays,
          mouseLogs: samples.getState().samples(),
          plays: [records],
          refreshMs: stage.refreshMs,
          refresh: stage.refresh,
          extras: { oit: query.orderInTask },
          mediaError: failure,
        });
      }
      send({ type: 'PLAYED' });
    })();
    return () => window.removeEventListener('pointerdown', onPress);
    // One play per (stimulus, replay): the other values are read when the play starts or ends.
  }, [step, playId, stage, plan]);

  // The play in progress stops when the page leaves the Test phase.
  useEffect(() => () => running.current?.abort.abort(), []);

  const answer = useCallback(
    (value: number) => {
      if (step !== 'rating' || busy || !stimulus) return;
      setBusy(true);
      void answerPipelineOf(store)
        .rating({
          stimulusId: stimulus.stimuli_id,
          value,
          nbReplay: trial.replays,
          plays: plays.current,
          refreshMs: stage?.refreshMs,
          refresh: stage?.refresh,
          extras: { oit: query.orderInTask },
          mediaError: interrupted.current.failure ?? (mediaError ? `${mediaError} could not be shown` : null),
        })
        .then((outcome) => {
          setBusy(false);
          // SPEC §8: a failed post is only logged; the participant stays on this answer.
          if (outcome === 'stored' || outcome === 'training') send({ type: 'RATED' });
        });
    },
    [store, step, busy, stimulus, trial.replays, stage, query.orderInTask, mediaError, send],
  );

  return { trial, stimulus, plan, awaitingClick, pausing, busy, mediaError, centre, windowNeed, send, answer };
}

/** The media file's own size once the stage prepared it (undefined before, or when it could not be). */
function naturalSize(stage: StageController, media: string): { width: number; height: number } | undefined {
  try {
    return stage.mediaSize(media);
  } catch {
    return undefined;
  }
}
