/**
 * The stage's clock: ONE requestAnimationFrame loop that measures the display refresh, detects dropped frames and
 * tells listeners about every frame. Pure logic over an injectable scheduler (tests drive it with a fake rAF);
 * no pixi.js here. The step bookkeeping (onsets/offsets) lives in stepSequencer.ts.
 */

/** An interval longer than this many refresh periods means at least one frame was missed. */
export const DROP_THRESHOLD_PERIODS = 1.5;

/**
 * Whole frames for a duration at a refresh period, rounded to the nearest frame (lab.js style).
 * A positive duration always gets at least one frame (a step that exists is shown); 0 or less gets 0.
 */
export function durationToFrames(ms: number, refreshMs: number): number {
  if (!(refreshMs > 0) || !Number.isFinite(refreshMs)) {
    throw new RangeError(`durationToFrames: refresh period must be a positive number, got ${refreshMs}`);
  }
  if (!(ms > 0)) return 0;
  return Math.max(1, Math.round(ms / refreshMs));
}

/** True when a frame interval shows that at least one refresh went by without a new frame. */
export function isDroppedInterval(intervalMs: number, refreshMs: number): boolean {
  return intervalMs > DROP_THRESHOLD_PERIODS * refreshMs;
}

/** Median of the intervals between consecutive timestamps (robust to the odd long warm-up frame). */
export function medianInterval(timestamps: readonly number[]): number {
  if (timestamps.length < 2) throw new RangeError('medianInterval: need at least two timestamps');
  const intervals = timestamps.slice(1).map((t, i) => t - timestamps[i]).sort((a, b) => a - b);
  const mid = intervals.length >> 1;
  return intervals.length % 2 ? intervals[mid] : (intervals[mid - 1] + intervals[mid]) / 2;
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
}

export interface WarmupOptions {
  /** Frames ignored right after start (page load makes them irregular). Default 5. */
  skipFrames: number;
  /** Intervals collected before the median is taken. Default 60. */
  frames: number;
  /** Give up waiting for `frames` after this long, if at least `minFrames` intervals were seen. Default 3000. */
  maxMs: number;
  /** Default 10. */
  minFrames: number;
}

const DEFAULT_WARMUP: WarmupOptions = { skipFrames: 5, frames: 60, maxMs: 3000, minFrames: 10 };

export type FrameListener = (frame: FrameInfo) => void;

export class FrameClock {
  /** Median frame interval over the warm-up; null until measured. */
  refreshMs: number | null = null;
  frameCount = 0;
  private handle: number | null = null;
  private lastTimestamp: number | null = null;
  private readonly warmupTimestamps: number[] = [];
  private readonly listeners = new Set<FrameListener>();
  private readonly refreshWaiters: Array<(refreshMs: number) => void> = [];
  private readonly warmup: WarmupOptions;

  constructor(
    private readonly scheduler: FrameScheduler = browserScheduler(),
    warmup: Partial<WarmupOptions> = {},
  ) {
    this.warmup = { ...DEFAULT_WARMUP, ...warmup };
  }

  start(): void {
    if (this.handle === null) this.handle = this.scheduler.request(this.tick);
  }

  stop(): void {
    if (this.handle !== null) this.scheduler.cancel(this.handle);
    this.handle = null;
    // The gap while stopped is not a dropped frame.
    this.lastTimestamp = null;
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
    const dropped = this.refreshMs !== null && intervalMs !== null && isDroppedInterval(intervalMs, this.refreshMs);
    const frame: FrameInfo = { index: this.frameCount, timestamp, intervalMs, dropped };
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
    this.refreshMs = medianInterval(samples);
    for (const resolve of this.refreshWaiters.splice(0)) resolve(this.refreshMs);
  }
}
