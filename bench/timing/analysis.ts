/** Node side: turn the page's raw timings into the figures the bench reports. */
import type { PresentationRecord } from '../../src/web/stage/types';
import { summary, type Summary } from '../shared/measure';
import type { BaselineRun, LongTaskRun } from './conditions';

/** The shared summary (bench/shared/measure.ts: n, mean, sample SD, min, type-7 p50/p95/p99, max) to 0.001. */
const summarize = (values: number[]): Summary => summary(values, 3);

/**
 * Where a condition's shown frames and shown durations come from. 'as recorded': the stage's own record (its
 * `shownFrames`, and its onset/offset frame timestamps, the same ones its logged durations come from), not a
 * measurement of the stage; 'rAF watcher': the baseline's, a passive requestAnimationFrame watcher in the page
 * noting the first frame each image was in. Independent checks of the stage's shown frames are bench:display's
 * (pixel capture on the virtual display).
 */
export type ShownFrom = 'as recorded' | 'rAF watcher';

export interface ConditionFigures {
  method: 'stage (rAF frame clock)' | 'baseline (setTimeout, DOM <img>)';
  requestedMs: number;
  requestedFrames: number;
  presentations: number;
  /** Where shownFrames, frameErrorHistogram, exactFrameShare* and shownDurationMs come from (see ShownFrom). */
  shownFrom: ShownFrom;
  /** Frames each presentation was on screen: the stage's record (as recorded), the baseline's watcher. */
  shownFrames: Summary;
  /** shown - requested frames -> number of presentations. */
  frameErrorHistogram: Record<string, number>;
  exactFrameShare: number;
  /** Presentations during which no frame was dropped, and the exact share among them: what each method does when
   * the machine keeps up (separates the method's own error from the noise of a loaded machine). */
  presentationsWithoutDrops: number;
  exactFrameShareWithoutDrops: number;
  /** Durations from the onsets the method itself logs (stage: frame timestamps on flip; baseline: performance.now() at the DOM change). */
  loggedDurationMs: Summary;
  loggedErrorMs: Summary;
  /**
   * Durations from frame timestamps. Baseline: the watcher's (what was on screen). Stage: as recorded, the same
   * figures as loggedDurationMs (kept under this key for the JSON's readers, not a second measurement).
   */
  shownDurationMs: Summary;
  /** Intervals over 1.5 refresh periods while the presentations were up. */
  droppedFrames: number;
  /** Stage only: ms from the onset frame's timestamp until its rendering had finished (1-pixel readPixels). */
  onsetRenderMs?: Summary;
}

export function stageFigures(records: PresentationRecord[], requestedMs: number, refreshMs: number): ConditionFigures {
  const requestedFrames = records[0]?.requestedFrames ?? Math.round(requestedMs / refreshMs);
  const shown = records.map((r) => r.shownFrames);
  const durations = records.map((r) => r.offsetMs - r.onsetMs);
  return {
    method: 'stage (rAF frame clock)',
    requestedMs,
    requestedFrames,
    presentations: records.length,
    shownFrom: 'as recorded',
    shownFrames: summarize(shown),
    frameErrorHistogram: histogram(shown.map((s) => s - requestedFrames)),
    exactFrameShare: round(shown.filter((s) => s === requestedFrames).length / Math.max(1, shown.length)),
    ...withoutDrops(shown, records.map((r) => r.droppedFrames), requestedFrames),
    loggedDurationMs: summarize(durations),
    loggedErrorMs: summarize(durations.map((d) => d - requestedMs)),
    shownDurationMs: summarize(durations),
    droppedFrames: records.reduce((a, r) => a + r.droppedFrames, 0),
    onsetRenderMs: summarize(records.filter((r) => r.renderDoneMs !== undefined).map((r) => (r.renderDoneMs ?? 0) - r.onsetMs)),
  };
}

export function baselineFigures(run: BaselineRun, requestedMs: number, refreshMs: number): ConditionFigures {
  const requestedFrames = Math.round(requestedMs / refreshMs);
  const logged = run.loggedOnsetMs.map((t, i) => (run.loggedOnsetMs[i + 1] ?? run.loggedEndMs) - t);
  const shownDurations = run.frameOnsetMs.map((t, i) => run.frameOffsetMs[i] - t);
  const shown = shownDurations.map((d) => Math.round(d / refreshMs));
  const droppedFrames = run.droppedFrames.reduce((a, b) => a + b, 0);
  return {
    method: 'baseline (setTimeout, DOM <img>)',
    requestedMs,
    requestedFrames,
    presentations: logged.length,
    shownFrom: 'rAF watcher',
    shownFrames: summarize(shown),
    frameErrorHistogram: histogram(shown.map((s) => s - requestedFrames)),
    exactFrameShare: round(shown.filter((s) => s === requestedFrames).length / Math.max(1, shown.length)),
    ...withoutDrops(shown, run.droppedFrames, requestedFrames),
    loggedDurationMs: summarize(logged),
    loggedErrorMs: summarize(logged.map((d) => d - requestedMs)),
    shownDurationMs: summarize(shownDurations),
    droppedFrames,
  };
}

export interface LongTaskFigures {
  injected: number;
  detected: number;
  tasks: Array<LongTaskRun & { detected: boolean; dropIntervalMs: number | null; presentationShownFrames: number | null }>;
}

/** A long task is detected when a dropped-frame interval recorded by the stage overlaps it. */
export function longTaskFigures(records: PresentationRecord[], tasks: LongTaskRun[]): LongTaskFigures {
  const drops = records.flatMap((r, index) => (r.drops ?? []).map((d) => ({ index, from: d.atMs - d.intervalMs, to: d.atMs, intervalMs: d.intervalMs })));
  const out = tasks.map((task) => {
    const drop = drops.find((d) => d.from < task.endMs && d.to > task.startMs);
    return {
      ...task,
      startMs: round(task.startMs),
      endMs: round(task.endMs),
      detected: drop !== undefined,
      dropIntervalMs: drop ? round(drop.intervalMs) : null,
      presentationShownFrames: drop ? records[drop.index].shownFrames : null,
    };
  });
  return { injected: tasks.length, detected: out.filter((t) => t.detected).length, tasks: out };
}

function withoutDrops(shown: number[], drops: number[], requestedFrames: number) {
  const clean = shown.filter((_, i) => drops[i] === 0);
  return {
    presentationsWithoutDrops: clean.length,
    exactFrameShareWithoutDrops: round(clean.filter((s) => s === requestedFrames).length / Math.max(1, clean.length)),
  };
}

function histogram(values: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of [...values].sort((a, b) => a - b)) {
    const key = v > 0 ? `+${v}` : String(v);
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
