/**
 * The bench conditions, run inside the page:
 * - stage: N images back to back through the real StageController (frame-counted durations, records on flip);
 * - baseline: the same images swapped in the DOM and timed with setTimeout, the way jsPsych ends a stimulus.
 *   A passive requestAnimationFrame watcher notes in which frame each image first and last appeared, so the
 *   baseline's shown frames are measured the same way the stage measures its own (frame timestamps).
 */
import { isDroppedInterval } from '../../src/web/stage/frameClock';
import { layoutSingle } from '../../src/web/stage/layouts';
import type { LoadedMedia, PresentationRecord, PresentationStep, StageController } from '../../src/web/stage/types';

export interface LongTaskPlan {
  /** Presentation during which the task runs. */
  index: number;
  /** ms after that presentation's expected onset. */
  offsetMs: number;
  busyMs: number;
}

export interface LongTaskRun extends LongTaskPlan {
  startMs: number;
  endMs: number;
}

export interface StageRun {
  records: PresentationRecord[];
  longTasks: LongTaskRun[];
}

export async function runStage(stage: StageController, media: LoadedMedia[], ms: number, plans: LongTaskPlan[] = []): Promise<StageRun> {
  const names = media.map((m) => m.name);
  await stage.prepare(names);
  const canvas = stage.size();
  const steps: PresentationStep[] = names.map((name) => ({
    label: name,
    items: [layoutSingle(canvas, { media: name, size: stage.mediaSize(name) })],
    end: { kind: 'duration', ms },
  }));
  const longTasks: LongTaskRun[] = [];
  const timers = plans.map((plan) =>
    setTimeout(() => {
      const startMs = performance.now();
      while (performance.now() - startMs < plan.busyMs) {
        // Busy loop: a long task blocking the main thread.
      }
      longTasks.push({ ...plan, startMs, endMs: performance.now() });
    }, plan.index * ms + plan.offsetMs),
  );
  try {
    const records = await stage.play(steps);
    return { records, longTasks };
  } finally {
    timers.forEach(clearTimeout);
  }
}

export interface BaselineRun {
  /** performance.now() when each image was put in the DOM (what a setTimeout-timed library logs). */
  loggedOnsetMs: number[];
  /** performance.now() when the last image was removed. */
  loggedEndMs: number;
  /** rAF timestamp of the first frame that showed each image, and of the frame that replaced it. */
  frameOnsetMs: number[];
  frameOffsetMs: number[];
  /** Frames seen by the watcher in which the image was on screen. */
  renderedFrames: number[];
  /** Frame intervals over 1.5 refresh periods while the image was on screen (same rule as the stage). */
  droppedFrames: number[];
}

export async function runBaseline(host: HTMLElement, media: LoadedMedia[], ms: number, refreshMs: number): Promise<BaselineRun> {
  const images = await Promise.all(
    media.map(async (m) => {
      const img = new Image();
      img.src = m.url;
      await img.decode(); // preloaded and decoded, as jsPsych's preload plugin does
      return img;
    }),
  );
  host.style.display = 'flex';
  let current = -1;
  const frameOnsetMs = media.map(() => Number.NaN);
  const frameOffsetMs = media.map(() => Number.NaN);
  const renderedFrames = media.map(() => 0);
  const droppedFrames = media.map(() => 0);
  let shownInLastFrame = -1;
  let lastFrameMs: number | null = null;
  let watching = true;
  const watch = (t: number) => {
    if (lastFrameMs !== null && shownInLastFrame >= 0 && isDroppedInterval(t - lastFrameMs, refreshMs)) droppedFrames[shownInLastFrame] += 1;
    lastFrameMs = t;
    // A DOM change made before this callback is painted in this frame.
    if (current !== shownInLastFrame) {
      if (shownInLastFrame >= 0) frameOffsetMs[shownInLastFrame] = t;
      if (current >= 0) frameOnsetMs[current] = t;
      shownInLastFrame = current;
    }
    if (current >= 0) renderedFrames[current] += 1;
    if (watching) requestAnimationFrame(watch);
  };
  requestAnimationFrame(watch);
  await nextFrame();

  const loggedOnsetMs: number[] = [];
  for (let i = 0; i < images.length; i++) {
    host.replaceChildren(images[i]);
    current = i;
    loggedOnsetMs.push(performance.now());
    await new Promise((resolve) => setTimeout(resolve, ms));
  }
  host.replaceChildren();
  current = -1;
  const loggedEndMs = performance.now();
  await nextFrame();
  await nextFrame();
  watching = false;
  host.style.display = 'none';
  return { loggedOnsetMs, loggedEndMs, frameOnsetMs, frameOffsetMs, renderedFrames, droppedFrames };
}

function nextFrame(): Promise<number> {
  return new Promise((resolve) => requestAnimationFrame(resolve));
}
