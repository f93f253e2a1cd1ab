import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { DEFAULT_SCALING, type Scaling } from '../../contract/job.js';
import type { PiifacePlaylistStimulus } from '../../contract/playlist.js';
import { answerPipelineOf } from '../../web/flow/answers.js';
import type { GlimpseStore } from '../../web/flow/store.js';
import { WINDOW_RECHECK_MS, windowNeedFor, type WindowNeed } from '../../web/participant/windowNeed.js';
import { layoutNeeds } from '../../web/stage/layouts.js';
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

/** The window the face needs when it does not fit left of the panel, or null. */
function faceWindowNeed(stage: StageController, item: StageItem): WindowNeed | null {
  const needs = layoutNeeds([item]);
  return windowNeedFor(needs ? [needs] : [], { devicePixels: () => faceRoom(stage.devicePixels()) }, window);
}

/** Re-layout after the window settles on a new size (the stage follows its container; the face rect must too). */
function useResizeCount(): number {
  const [count, setCount] = useState(0);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onResize = () => {
      clearTimeout(timer);
      timer = setTimeout(() => setCount((c) => c + 1), 250);
    };
    window.addEventListener('resize', onResize);
    return () => {
      clearTimeout(timer);
      window.removeEventListener('resize', onResize);
    };
  }, []);
  return count;
}

export function useFaceTrials({ store, stimuli, training, stage, scaling = DEFAULT_SCALING, onDone }: Input): FaceTrials {
  const start = training ? 0 : store.getState().flow.resumeAt;
  const options = useMemo(() => ({ count: stimuli.length, training, start }), [stimuli.length, training, start]);
  const [trial, setTrial] = useState(() => firstFaceTrial(options));
  const send = useCallback((event: FaceEvent) => setTrial((s) => faceTransition(s, event, options)), [options]);
  const [rect, setRect] = useState<Rect | null>(null);
  const [imageFailed, setImageFailed] = useState(false);
  const [windowNeed, setWindowNeed] = useState<WindowNeed | null>(null);
  /** The presentation on screen: its play (resolving with its records once released) and the records of earlier ones. */
  const presentation = useRef<{ play: Promise<PresentationRecord[]> | null; plays: PresentationRecord[][] }>({ play: null, plays: [] });
  /**
   * The released face's play until it has ended. release() ends the hold at the NEXT frame, and the next face is
   * usually prepared already, so its play() must wait for this one: the stage plays one play() at a time and
   * refuses a second ("the stage is already playing"), which left training face 2 never drawn.
   */
  const ending = useRef<Promise<unknown>>(Promise.resolve());
  const resizes = useResizeCount();
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
    if (playCount === 0) presentation.current = { play: null, plays: [] };
    const abort = new AbortController();
    void (async () => {
      try {
        await stage.prepare([stimulus.source]);
        await ending.current;
        if (abort.signal.aborted) return;
        // Too small a window for the face at its scaling: wait, asking for a larger one. Nothing is shown shrunk.
        let item = placeFace(stage, stimulus.source, scaling);
        for (let need = faceWindowNeed(stage, item); need !== null; need = faceWindowNeed(stage, item)) {
          setWindowNeed(need);
          await new Promise((resolve) => setTimeout(resolve, WINDOW_RECHECK_MS));
          if (abort.signal.aborted) return;
          item = placeFace(stage, stimulus.source, scaling);
        }
        setWindowNeed(null);
        const shown = item.rect;
        // The face is answerable from the frame that first draws it.
        const drawn = new Promise<void>((onset) => {
          presentation.current.play = stage.play([{ label: 'face', items: [item], end: { kind: 'hold' } }], {
            signal: abort.signal,
            onOnset: () => onset(),
          });
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

  // A resize while the face is up: lay it out again (a new presentation of the same face). A window now too small
  // gets the message over the face, which stays at its size (cut, never shrunk) until the window is enlarged.
  useEffect(() => {
    if (resizes === 0 || !stage || !stimulus || status !== 'showing' || !presentation.current.play) return;
    stage.clear();
    void presentation.current.play.then((records) => {
      presentation.current.plays.push(records);
      const item = placeFace(stage, stimulus.source, scaling);
      presentation.current.play = stage.play([{ label: 'face', items: [item], end: { kind: 'hold' } }]);
      setRect(item.rect);
      setWindowNeed(faceWindowNeed(stage, item));
    });
  }, [resizes]);

  const next = useCallback(
    (answer: PiifaceAnswer) => {
      if (!stimulus || status !== 'showing') return;
      if (!training && !isComplete(answer)) return;
      const current = presentation.current;
      if (current.play) ending.current = current.play.catch(() => undefined);
      stage?.release();
      setRect(null);
      send({ type: 'ANSWERED' });
      void (async () => {
        if (current.play) current.plays.push(await current.play.catch(() => []));
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
