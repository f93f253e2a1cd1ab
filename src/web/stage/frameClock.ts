/**
 * The stage's clock: ONE requestAnimationFrame loop that measures the display refresh, detects dropped frames and
 * tells listeners about every frame. Pure logic over an injectable scheduler (tests drive it with a fake rAF);
 * no pixi.js here. The step bookkeeping (onsets/offsets) lives in stepSequencer.ts, the period fit in
 * refreshEstimate.ts.
 */
import { DEFAULT_REFRESH_WATCH, fitRefreshPeriod, medianInterval, RefreshWatch, RunningPeriodFit } from './refreshEstimate';
import type { RefreshChange, RefreshEstimate, RefreshWatchOptions } from './refreshEstimate';

export { medianInterval };
export type { RefreshChange, RefreshEstimate };

/** An interval longer than this many refresh periods means at least one frame was missed. */
export const DROP_THRESHOLD_PERIODS = 1.5;

/** A tie band is this many standard errors of the period wide on each side of a half frame. */
export const TIE_SIGMAS = 3;
/** Ties closer than this (in frames) are float noise: 500 / (1000 / 165) is 82.5 or a hair off it. */
const TIE_FLOOR_FRAMES = 1e-9;
/** Past this, the period is too uncertain to tell anything near a half frame; the nearest frame is kept. */
const MAX_TIE_BAND_FRAMES = 0.1;

/**
 * Whole frames for a duration at a refresh period, rounded to the nearest frame (lab.js style).
 * A positive duration always gets at least one frame (a step that exists is shown); 0 or less gets 0.
 *
 * Half frames round up (as Math.round does), and so does every count the period's uncertainty cannot tell from a
 * half frame: a duration whose frame count is within `TIE_SIGMAS` standard errors of k + ½ gets k + 1 frames. A
 * period off by σ moves ms / period by ms·σ / period², so 500 ms at 165 Hz (82.5 periods) would otherwise be 82 or
 * 83 frames depending on the last 0.1 µs of the fit, and change from one frame to the next as the fit sharpens.
 */
export function durationToFrames(ms: number, refreshMs: number, uncertaintyMs = 0): number {
  if (!(refreshMs > 0) || !Number.isFinite(refreshMs)) {
    throw new RangeError(`durationToFrames: refresh period must be a positive number, got ${refreshMs}`);
  }
  if (!(ms > 0)) return 0;
  const periods = ms / refreshMs;
  const whole = Math.floor(periods);
  const sigma = Number.isFinite(uncertaintyMs) && uncertaintyMs > 0 ? uncertaintyMs : 0;
  const band = Math.min(MAX_TIE_BAND_FRAMES, TIE_SIGMAS * ms * sigma / refreshMs ** 2) + TIE_FLOOR_FRAMES;
  const tie = Math.abs(periods - whole - 0.5) <= band;
  return Math.max(1, tie ? whole + 1 : Math.round(periods));
}

/** True when a frame interval shows that at least one refresh went by without a new frame. */
export function isDroppedInterval(intervalMs: number, refreshMs: number): boolean {
  return intervalMs > DROP_THRESHOLD_PERIODS * refreshMs;
}

/** requestAnimationFrame / cancelAnimationFrame, injectable for tests. */
export interface FrameScheduler {
  request(callback: (timestamp: number) => void): number;
  cancel(handle: number): void;
}

export function browserScheduler(): FrameScheduler {
  return {
    request: (callback) => requestAnimationFrame(callback),
    cancel: (handle) => cancelAnimationFrame(handle),
  };
}

export interface FrameInfo {
  /** 1 for the first frame the clock saw. */
  index: number;
  /** The rAF timestamp of this frame (performance.now timebase): the time of the frame this callback draws. */
  timestamp: number;
  /** Time since the previous frame; null on the first frame after start(). */
  intervalMs: number | null;
  /** The interval exceeded 1.5 refresh periods (always false until the refresh is measured). */
  dropped: boolean;
  /** The refresh period in force at this frame (null until measured; follows a change of rate). */
  refreshMs?: number | null;
  /** Its standard error (decides half-frame ties, see durationToFrames). */
  refreshUncertaintyMs?: number | null;
}

export interface WarmupOptions {
  /** Frames ignored right after start (page load makes them irregular). Default 5. */
  skipFrames: number;
  /** Intervals collected before the period is fitted. Default 60. */
  frames: number;
  /** Give up waiting for `frames` after this long, if at least `minFrames` intervals were seen. Default 3000. */
  maxMs: number;
  /** Default 10. */
  minFrames: number;
}

/** A running fit replaces the warm-up's (or a change's) estimate only once it spans this many intervals. */
const MIN_REFINE_INTERVALS = 60;

const DEFAULT_WARMUP: WarmupOptions = { skipFrames: 5, frames: 60, maxMs: 3000, minFrames: 10 };

export type FrameListener = (frame: FrameInfo) => void;

export class FrameClock {
  /** The refresh period in force (fitted over the warm-up, then over a window after a change); null until measured. */
  refreshMs: number | null = null;
  /** The estimate behind refreshMs: period, standard error, intervals fitted. */
  refresh: RefreshEstimate | null = null;
  /** Changes of refresh rate seen after the warm-up, in order. */
  readonly refreshChanges: RefreshChange[] = [];
  frameCount = 0;
  private readonly watch: RefreshWatch;
  /** The fit kept up over every frame since the warm-up (or since the last change of rate). */
  private readonly periodFit = new RunningPeriodFit();
  private handle: number | null = null;
  private lastTimestamp: number | null = null;
  private readonly warmupTimestamps: number[] = [];
  private readonly listeners = new Set<FrameListener>();
  private readonly refreshWaiters: Array<(refreshMs: number) => void> = [];
  private readonly warmup: WarmupOptions;

  constructor(
    private readonly scheduler: FrameScheduler = browserScheduler(),
    warmup: Partial<WarmupOptions> = {},
    watch: RefreshWatchOptions = DEFAULT_REFRESH_WATCH,
  ) {
    this.warmup = { ...DEFAULT_WARMUP, ...warmup };
    this.watch = new RefreshWatch(watch);
  }

  start(): void {
    if (this.handle === null) this.handle = this.scheduler.request(this.tick);
  }

  stop(): void {
    if (this.handle !== null) this.scheduler.cancel(this.handle);
    this.handle = null;
    // The gap while stopped is not a dropped frame, nor a change of rate.
    this.lastTimestamp = null;
    this.watch.reset();
  }

  get running(): boolean {
    return this.handle !== null;
  }

  onFrame(listener: FrameListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the measured refresh period once the warm-up is over. */
  whenMeasured(): Promise<number> {
    if (this.refreshMs !== null) return Promise.resolve(this.refreshMs);
    return new Promise((resolve) => this.refreshWaiters.push(resolve));
  }

  private readonly tick = (timestamp: number): void => {
    // Ask for the next frame first, so a throwing listener cannot stop the clock.
    this.handle = this.scheduler.request(this.tick);
    this.frameCount += 1;
    const intervalMs = this.lastTimestamp === null ? null : timestamp - this.lastTimestamp;
    this.lastTimestamp = timestamp;
    if (this.refreshMs === null) this.collectWarmup(timestamp);
    else this.watchRate(timestamp);
    const dropped = this.refreshMs !== null && intervalMs !== null && isDroppedInterval(intervalMs, this.refreshMs);
    const frame: FrameInfo = {
      index: this.frameCount,
      timestamp,
      intervalMs,
      dropped,
      refreshMs: this.refreshMs,
      refreshUncertaintyMs: this.refresh?.uncertaintyMs ?? null,
    };
    for (const listener of this.listeners) listener(frame);
  };

  private collectWarmup(timestamp: number): void {
    if (this.frameCount <= this.warmup.skipFrames) return;
    const samples = this.warmupTimestamps;
    samples.push(timestamp);
    const intervals = samples.length - 1;
    const elapsed = timestamp - samples[0];
    const enough = intervals >= this.warmup.frames || (elapsed >= this.warmup.maxMs && intervals >= this.warmup.minFrames);
    if (!enough) return;
    const fit = fitRefreshPeriod(samples);
    if (!(fit.periodMs > 0) || fit.intervals < 2) {
      // Frames too irregular to fit (a page still loading, repeated timestamps): measure again.
      samples.length = 0;
      return;
    }
    this.refresh = fit;
    this.refreshMs = fit.periodMs;
    for (const t of samples) this.periodFit.add(t, this.refreshMs);
    for (const resolve of this.refreshWaiters.splice(0)) resolve(this.refreshMs);
  }

  private watchRate(timestamp: number): void {
    const changed = this.watch.frame(timestamp, this.refreshMs!);
    if (!changed) {
      // Sharpen the period with every frame (a step's frame count uses the period at its onset).
      this.periodFit.add(timestamp, this.refreshMs!);
      const refined = this.periodFit.estimate();
      if (refined && refined.periodMs > 0 && refined.intervals >= MIN_REFINE_INTERVALS && refined.uncertaintyMs <= this.refresh!.uncertaintyMs) {
        this.refresh = refined;
        this.refreshMs = refined.periodMs;
      }
      return;
    }
    this.periodFit.reset();
    this.refreshChanges.push({ atMs: changed.sinceMs, fromMs: this.refreshMs!, toMs: changed.periodMs });
    this.refresh = { periodMs: changed.periodMs, uncertaintyMs: changed.uncertaintyMs, intervals: changed.intervals };
    this.refreshMs = changed.periodMs;
  }
}
