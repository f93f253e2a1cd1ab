import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { DEFAULT_SCALING, type Scaling } from '../../contract/job-options.js';
import type { PiifacePlaylistStimulus } from '../../contract/playlist.js';
import { answerPipelineOf } from '../../web/flow/answers.js';
import type { GlimpseStore } from '../../web/flow/store.js';
import { WINDOW_RECHECK_MS, windowNeedFor, type WindowNeed } from '../../web/participant/windowNeed.js';
import { layoutNeeds } from '../../web/stage/layouts.js';
import { isStageInterrupted } from '../../web/stage/errors.js';
import type { PresentationRecord, Rect, StageController, StageItem } from '../../web/stage/types.js';
import { isComplete, piifaceValue, type PiifaceAnswer } from './answers.js';
import { faceTransition, firstFaceTrial, type FaceEvent, type FaceStatus } from './faceTrials.js';
import { faceItem, faceRoom } from './layout.js';

/**
 * Runs the piiface images on the stage through the trial machine (faceTrials.ts): each face is one 'hold' step that
 * stays up until the participant moves on (the page's release() ends it, so its timing record says how long it was
 * on screen), then the answer goes to the answer pipeline with that record. The next face is prepared while the
 * current one is shown.
 */

export interface FaceTrials {
  index: number;
  status: FaceStatus;
  stimulus: PiifacePlaylistStimulus | undefined;
  /** Where the face is drawn (CSS px from the stage's top-left), null until it is. */
  rect: Rect | null;
  imageFailed: boolean;
  /** The window is too small for the face at the study's scaling: what it needs (null: it fits). */
  windowNeed: WindowNeed | null;
  next(answer: PiifaceAnswer): void;
}

interface Input {
  store: GlimpseStore;
  stimuli: PiifacePlaylistStimulus[];
  training: boolean;
  stage: StageController | null;
  /** The study's `scaling` (absent: the default, 'integer'). */
  scaling?: Scaling;
  onDone(): void;
}

/** The face laid out on the stage now, at the study's scaling. */
function placeFace(stage: StageController, source: string, scaling: Scaling): StageItem {
  return faceItem({ ...stage.size(), pixelRatio: stage.devicePixels().ratio, scaling }, source, stage.mediaSize(source));
}

/** One face on screen: its play (all of it, replays included), the records of plays before, and how to end it. */
interface Presentation {
  play: Promise<PresentationRecord[]> | null;
  plays: PresentationRecord[][];
  /** The answer released it: an interrupted play is not shown again. */
  released: boolean;
  /** Stops a replay that waits for the stage to draw again (release() cannot reach a play not yet started). */
  stopReplay: (() => void) | null;
}

/** What laying the face out tells the page: the window it still needs (null: it fits), and where it is drawn. */
interface FaceLayoutEvents {
  onWindow(need: WindowNeed | null): void;
  onPlaced(item: StageItem): void;
}

/**
 * The face laid out for the display as it is now. A window too small for it at the study's scaling: the page says
 * so, and the layout is measured again every 250 ms until it fits (nothing is shown shrunk) or `signal` aborts.
 */
async function fittedFace(stage: StageController, source: string, scaling: Scaling, events: FaceLayoutEvents, signal: AbortSignal): Promise<StageItem> {
  let item = placeFace(stage, source, scaling);
  for (let need = faceWindowNeed(stage, item); need !== null && !signal.aborted; need = faceWindowNeed(stage, item)) {
    events.onWindow(need);
    await new Promise((resolve) => setTimeout(resolve, WINDOW_RECHECK_MS));
    item = placeFace(stage, source, scaling);
  }
  events.onWindow(null);
  return item;
}

/**
 * Holds the face on the stage until the answer releases it. When the stage stops drawing (a hidden page, a lost
 * context, a display change: the window resized or moved to another screen; docs/timing.md), the play is
 * interrupted: the face is laid out again for the display as it is now (waiting for a window large enough) and held
 * again once the stage draws steadily; the interrupted play's records go with the answer. Resolves with the last
 * play's records ([] when the answer came before a replay was drawn).
 */
async function holdFace(
  stage: StageController,
  presentation: Presentation,
  first: StageItem,
  options: FaceLayoutEvents & { scaling: Scaling; signal: AbortSignal; onOnset?: () => void },
): Promise<PresentationRecord[]> {
  let item = first;
  for (let attempt = 0; ; attempt++) {
    const play = new AbortController();
    const stop = () => play.abort();
    options.signal.addEventListener('abort', stop, { once: true });
    // release() cannot reach a play not yet drawn: the answer stops a replay through this.
    if (attempt > 0) presentation.stopReplay = stop;
    try {
      if (attempt > 0) {
        // Laid out once the stage draws again, for the canvas the replay starts on.
        await stage.whenDrawable();
        item = await fittedFace(stage, item.media, options.scaling, options, play.signal);
        if (play.signal.aborted) return [];
        options.onPlaced(item);
      }
      return await stage.play([{ label: 'face', items: [item], end: { kind: 'hold' } }], {
        signal: play.signal,
        onOnset: () => {
          if (presentation.stopReplay === stop) presentation.stopReplay = null;
          options.onOnset?.();
        },
      });
    } catch (error) {
      if (!isStageInterrupted(error) || play.signal.aborted || presentation.released) throw error;
      presentation.plays.push(error.records);
    } finally {
      options.signal.removeEventListener('abort', stop);
    }
  }
}

/** The window the face needs when it does not fit left of the panel, or null. */
function faceWindowNeed(stage: StageController, item: StageItem): WindowNeed | null {
  const needs = layoutNeeds([item]);
  return windowNeedFor(needs ? [needs] : [], { devicePixels: () => faceRoom(stage.devicePixels()) }, window);
}

export function useFaceTrials({ store, stimuli, training, stage, scaling = DEFAULT_SCALING, onDone }: Input): FaceTrials {
  const start = training ? 0 : store.getState().flow.resumeAt;
  const options = useMemo(() => ({ count: stimuli.length, training, start }), [stimuli.length, training, start]);
  const [trial, setTrial] = useState(() => firstFaceTrial(options));
  const send = useCallback((event: FaceEvent) => setTrial((s) => faceTransition(s, event, options)), [options]);
  const [rect, setRect] = useState<Rect | null>(null);
  const [imageFailed, setImageFailed] = useState(false);
  const [windowNeed, setWindowNeed] = useState<WindowNeed | null>(null);
  /** Laying the face out: the window message, and where the face is drawn after an interruption. */
  const layoutEvents = useMemo<FaceLayoutEvents>(() => ({ onWindow: setWindowNeed, onPlaced: (item) => setRect(item.rect) }), []);
  /** The presentation on screen: its play (resolving with its records once released) and the records of earlier ones. */
  const presentation = useRef<Presentation>({ play: null, plays: [], released: false, stopReplay: null });
  /**
   * The released face's play until it has ended. release() ends the hold at the NEXT frame, and the next face is
   * usually prepared already, so its play() must wait for this one: the stage plays one play() at a time and
   * refuses a second ("the stage is already playing"), which left training face 2 never drawn.
   */
  const ending = useRef<Promise<unknown>>(Promise.resolve());
  const stimulus = stimuli[trial.index];
  const { index, status, plays: playCount } = trial;

  useEffect(() => {
    store.getState().setTrial(stimulus ? { training, index, total: stimuli.length } : null);
  }, [store, stimulus, training, index, stimuli.length]);

  useEffect(() => {
    if (status === 'done') onDone();
  }, [status, onDone]);

  // A new image, or the same one again after a failed save: prepare it and hold it on screen. Keyed by the
  // presentation (index, plays), not by the status: answering must not abort the face's play.
  const preparing = status === 'preparing';
  useEffect(() => {
    if (!stage || !stimulus || !preparing) return;
    if (playCount === 0) presentation.current = { play: null, plays: [], released: false, stopReplay: null };
    else presentation.current.released = false;
    const abort = new AbortController();
    void (async () => {
      try {
        await stage.prepare([stimulus.source]);
        await ending.current;
        if (abort.signal.aborted) return;
        // Too small a window for the face at its scaling: wait, asking for a larger one. Nothing is shown shrunk.
        const item = await fittedFace(stage, stimulus.source, scaling, layoutEvents, abort.signal);
        if (abort.signal.aborted) return;
        let shown = item.rect;
        // The face is answerable from the frame that first draws it (the first play, or a replay after an interruption).
        const drawn = new Promise<void>((onset) => {
          const onPlaced = (placed: StageItem) => {
            shown = placed.rect;
            layoutEvents.onPlaced(placed);
          };
          presentation.current.play = holdFace(stage, presentation.current, item, { ...layoutEvents, onPlaced, scaling, signal: abort.signal, onOnset: () => onset() });
        });
        const next = stimuli[index + 1];
        if (next) void stage.prepare([next.source]).catch(() => undefined);
        await Promise.race([drawn, presentation.current.play]);
        if (abort.signal.aborted) return;
        setRect(shown);
        setImageFailed(false);
      } catch (error) {
        if (abort.signal.aborted) return;
        // The participant can still go on; the answer's logs say the face was not shown (media:missing).
        console.log('the face could not be shown', error);
        presentation.current.play = null;
        setRect(null);
        setImageFailed(true);
      }
      send({ type: 'SHOWN' });
    })();
    return () => abort.abort();
    // One run per presentation (see above).
  }, [stage, stimulus, index, playCount]);

  const next = useCallback(
    (answer: PiifaceAnswer) => {
      if (!stimulus || status !== 'showing') return;
      if (!training && !isComplete(answer)) return;
      const current = presentation.current;
      if (current.play) ending.current = current.play.catch(() => undefined);
      current.released = true;
      stage?.release();
      // A face waiting to be shown again after an interruption is not shown again.
      current.stopReplay?.();
      setWindowNeed(null);
      setRect(null);
      send({ type: 'ANSWERED' });
      void (async () => {
        const last = current.play ? await current.play.catch(() => []) : [];
        if (last.length > 0) current.plays.push(last);
        current.play = null;
        if (training) return;
        const outcome = await answerPipelineOf(store).rating({
          stimulusId: stimulus.stimuli_id,
          value: piifaceValue(answer.emotion!, answer.confidence!),
          nbReplay: 0,
          plays: current.plays,
          refreshMs: stage?.refreshMs,
          refresh: stage?.refresh,
          mediaError: imageFailed ? 'the face could not be shown' : null,
        });
        // SPEC §7: a failed post is only logged; the face is shown again and the answer can be sent again.
        send({ type: outcome === 'stored' || outcome === 'training' ? 'STORED' : 'FAILED' });
      })();
    },
    [store, stimulus, status, training, stage, imageFailed, send],
  );

  return { index, status, stimulus, rect, imageFailed, windowNeed, next };
}
