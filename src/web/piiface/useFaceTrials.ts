import { useCallback, useEffect, useRef, useState } from 'react';
import type { PiifacePlaylistStimulus } from '../../contract/playlist.js';
import { windowSizeLog } from '../flow/sizeLog.js';
import type { GlimpseStore } from '../flow/store.js';
import { ratingSender } from '../flow/ratingSender.js';
import type { Rect, StageController } from '../stage/types.js';
import { isComplete, piifaceValue, type PiifaceAnswer } from './answers.js';
import { faceRect } from './layout.js';

/**
 * Runs the piiface images one by one on the stage (SPEC §4 "Piiface"): prepare the face, put it on screen until
 * the participant moves on, then for a test image post {value, nbReplay 0, logs: size text} and advance only once
 * the server has it; a training image advances at once and sends nothing. A failed post keeps the image and its
 * Idempotency-Key, so pressing 'Next image' again cannot store it twice.
 */

export type FaceStatus = 'preparing' | 'showing' | 'saving';

export interface FaceTrials {
  index: number;
  status: FaceStatus;
  stimulus: PiifacePlaylistStimulus | undefined;
  /** Where the face is drawn (CSS px from the stage's top-left), null until it is. */
  rect: Rect | null;
  imageFailed: boolean;
  next(answer: PiifaceAnswer): void;
}

interface Input {
  store: GlimpseStore;
  stimuli: PiifacePlaylistStimulus[];
  training: boolean;
  controller: StageController | null;
  onDone(): void;
}

/** A face stays up until the participant answers: a step longer than any session, ended by aborting the play. */
const HOLD_MS = 24 * 60 * 60 * 1000;

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

export function useFaceTrials({ store, stimuli, training, controller, onDone }: Input): FaceTrials {
  const [index, setIndex] = useState(0);
  const [status, setStatus] = useState<FaceStatus>('preparing');
  const [rect, setRect] = useState<Rect | null>(null);
  const [imageFailed, setImageFailed] = useState(false);
  // One sender per page: it keeps each stimulus's Idempotency-Key.
  const [sendRating] = useState(() => ratingSender(store));
  // The stage plays one presentation at a time: the next face waits until the previous play has ended.
  const playing = useRef<Promise<unknown>>(Promise.resolve());
  const resizes = useResizeCount();
  const stimulus = stimuli[index];

  useEffect(() => {
    if (!controller || !stimulus) return;
    const abort = new AbortController();
    void (async () => {
      let shown: Rect | null = null;
      try {
        await controller.prepare([stimulus.source]);
        await playing.current;
        if (abort.signal.aborted) return;
        shown = faceRect(controller.size(), controller.mediaSize(stimulus.source));
        const run = controller.play([{ label: 'face', items: [{ media: stimulus.source, rect: shown }], end: { kind: 'duration', ms: HOLD_MS } }], abort.signal);
        playing.current = run.catch(() => undefined);
        const next = stimuli[index + 1];
        if (next) void controller.prepare([next.source]).catch(() => undefined);
        setRect(shown);
        setImageFailed(false);
        setStatus((s) => (s === 'preparing' ? 'showing' : s));
        await run;
      } catch (error) {
        if (abort.signal.aborted) return;
        // The participant can still go on; the rating's logs say the face was not shown (media:missing).
        console.log('the face could not be shown', error);
        setRect(null);
        setImageFailed(true);
        setStatus((s) => (s === 'preparing' ? 'showing' : s));
      }
    })();
    return () => abort.abort();
  }, [controller, stimulus, stimuli, index, resizes]);

  const advance = useCallback(() => {
    setRect(null);
    setImageFailed(false);
    if (index + 1 >= stimuli.length) {
      onDone();
      return;
    }
    setStatus('preparing');
    setIndex(index + 1);
  }, [index, stimuli.length, onDone]);

  const next = useCallback(
    (answer: PiifaceAnswer) => {
      if (!stimulus || status !== 'showing') return;
      // SPEC §4: a training image advances with no answer needed and none sent.
      if (training) return advance();
      if (!isComplete(answer)) return;
      const rating = {
        stimulusId: stimulus.stimuli_id,
        value: piifaceValue(answer.emotion, answer.confidence),
        nbReplay: 0,
        logs: windowSizeLog(window, imageFailed ? { media: 'missing' } : undefined),
      };
      // SPEC §7: a failed post is only logged; the image stays and the answer can be sent again.
      if (sendRating(rating, { stored: advance, failed: () => setStatus('showing') })) setStatus('saving');
    },
    [stimulus, status, training, sendRating, imageFailed, advance],
  );

  return { index, status, stimulus, rect, imageFailed, next };
}
