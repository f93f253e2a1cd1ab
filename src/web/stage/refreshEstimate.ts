/**
 * The display's refresh period from the span of many frames, not from single intervals: browsers coarsen rAF
 * timestamps (0.1 ms in Chromium), so a median interval is off by up to 0.05 ms (6.900 for 6.944 ms at 144 Hz),
 * an error that grows with every frame a long step counts. A least-squares fit of timestamps against frame
 * numbers over N frames is off by about 0.03 / √(N³/12) ms: 0.0002 ms over 60 frames. Pure; no DOM.
 */

export interface RefreshEstimate {
  /** Fitted refresh period, ms. */
  periodMs: number;
  /** Standard error of the fitted period, ms. */
  uncertaintyMs: number;
  /** Frame intervals the fit used (drops excluded). */
  intervals: number;
}

/** Intervals farther than this share of a period from one period are left out of the fit (drops, stalls). */
const FIT_TOLERANCE = 0.5;

/**
 * Fits the period over frames at `timestamps`, leaving out every interval that is not about one period (a dropped
 * frame, a stall): the frames are cut into runs of consecutive refreshes and one slope is fitted to all runs, each
 * run with its own intercept (so a drop's unknown length does not bias it). `approxMs` (e.g. the median interval)
 * decides what "about one period" is.
 */
export function fitRefreshPeriod(timestamps: readonly number[], approxMs: number = medianInterval(timestamps)): RefreshEstimate {
  // Two callbacks with one timestamp (a browser running rAF twice in a frame) say nothing about the period.
  if (!(approxMs > 0) || !Number.isFinite(approxMs)) return { periodMs: Number.NaN, uncertaintyMs: Number.POSITIVE_INFINITY, intervals: 0 };
  const runs: number[][] = [];
  let run: number[] = [];
  timestamps.forEach((t, i) => {
    const interval = i === 0 ? null : t - timestamps[i - 1];
    if (interval !== null && Math.abs(interval - approxMs) > FIT_TOLERANCE * approxMs) {
      if (run.length > 1) runs.push(run);
      run = [];
    }
    run.push(t);
  });
  if (run.length > 1) runs.push(run);
  // Pooled within-run regression of time on frame number.
  let sxy = 0;
  let sxx = 0;
  let points = 0;
  for (const r of runs) {
    const meanX = (r.length - 1) / 2;
    const meanY = r.reduce((sum, t) => sum + t, 0) / r.length;
    r.forEach((t, k) => {
      sxy += (k - meanX) * (t - meanY);
      sxx += (k - meanX) ** 2;
    });
    points += r.length;
  }
  const intervals = points - runs.length;
  if (intervals < 1 || sxx === 0) return { periodMs: Number.NaN, uncertaintyMs: Number.POSITIVE_INFINITY, intervals: 0 };
  const periodMs = sxy / sxx;
  let sse = 0;
  for (const r of runs) {
    const meanY = r.reduce((sum, t) => sum + t, 0) / r.length;
    const meanX = (r.length - 1) / 2;
    r.forEach((t, k) => {
      sse += (t - meanY - periodMs * (k - meanX)) ** 2;
    });
  }
  const dof = points - runs.length - 1;
  const uncertaintyMs = dof > 0 ? Math.sqrt(sse / dof / sxx) : Number.POSITIVE_INFINITY;
  return { periodMs, uncertaintyMs, intervals };
}

/** Median of the positive intervals between consecutive timestamps (robust to the odd long warm-up frame). */
export function medianInterval(timestamps: readonly number[]): number {
  if (timestamps.length < 2) throw new RangeError('medianInterval: need at least two timestamps');
  const intervals = timestamps
    .slice(1)
    .map((t, i) => t - timestamps[i])
    .filter((d) => d > 0)
    .sort((a, b) => a - b);
  if (intervals.length === 0) return Number.NaN;
  const mid = intervals.length >> 1;
  return intervals.length % 2 ? intervals[mid] : (intervals[mid - 1] + intervals[mid]) / 2;
}

/** Frames per run before it is closed and a new one started (keeps the sums small; costs no accuracy). */
const MAX_RUN = 10_000;

/**
 * The same fit kept up to date frame by frame over the whole session (O(1) per frame), so the period gets sharper
 * as frames come: a 10 s step at 240 Hz needs it within 0.0009 ms to count 2400 frames, which 60 warm-up frames
 * with jitter do not always give. Times are detrended by the run's first period guess and accumulated with
 * Welford's updates, so long sessions lose no precision.
 */
export class RunningPeriodFit {
  private sxx = 0;
  private sxy = 0;
  private syy = 0;
  private points = 0;
  private runs = 0;
  // The current run.
  private n = 0;
  private guess = 0;
  private t0 = 0;
  private lastT = 0;
  private meanK = 0;
  private meanY = 0;
  private cxx = 0;
  private cxy = 0;
  private cyy = 0;

  /** Adds a frame; an interval not within half a period of `periodMs` (a drop) starts a new run. */
  add(timestamp: number, periodMs: number): void {
    if (this.n > 0 && (Math.abs(timestamp - this.lastT - periodMs) > FIT_TOLERANCE * periodMs || this.n >= MAX_RUN)) this.closeRun();
    if (this.n === 0) {
      this.guess = periodMs;
      this.t0 = timestamp;
    }
    const k = this.n;
    const y = timestamp - this.t0 - this.guess * k;
    this.n += 1;
    const dk = k - this.meanK;
    const dy = y - this.meanY;
    this.meanK += dk / this.n;
    this.meanY += dy / this.n;
    this.cxx += dk * (k - this.meanK);
    this.cxy += dk * (y - this.meanY);
    this.cyy += dy * (y - this.meanY);
    this.lastT = timestamp;
  }

  estimate(): RefreshEstimate | null {
    // Pool the closed runs with the current one; each run's detrend guess is added back to its slope.
    const runs = this.runs + (this.n > 1 ? 1 : 0);
    const sxx = this.sxx + (this.n > 1 ? this.cxx : 0);
    const sxy = this.sxy + (this.n > 1 ? this.cxy + this.guess * this.cxx : 0);
    const points = this.points + (this.n > 1 ? this.n : 0);
    if (sxx === 0 || points - runs < 1) return null;
    const periodMs = sxy / sxx;
    const dof = points - runs - 1;
    const sse = this.residual(periodMs);
    return { periodMs, uncertaintyMs: dof > 0 ? Math.sqrt(Math.max(0, sse) / dof / sxx) : Number.POSITIVE_INFINITY, intervals: points - runs };
  }

  reset(): void {
    Object.assign(this, { sxx: 0, sxy: 0, syy: 0, points: 0, runs: 0 });
    this.startRun();
  }

  private residual(periodMs: number): number {
    // Σ over runs of Σ(y − ȳ − (b − guess)(k − k̄))², with y detrended by each run's own guess (kept in syy/sxy).
    let sse = this.syy;
    if (this.n > 1) sse += runResidual(this.cxx, this.cxy, this.cyy, periodMs - this.guess);
    return sse;
  }

  private closeRun(): void {
    if (this.n > 1) {
      this.sxx += this.cxx;
      this.sxy += this.cxy + this.guess * this.cxx;
      // The residual of a closed run against the pooled slope is not known yet; keep it against its own guess's
      // slope, which is within a few µs of the pooled one (the error this leaves in the uncertainty is negligible).
      this.syy += runResidual(this.cxx, this.cxy, this.cyy, this.cxy / this.cxx);
      this.points += this.n;
      this.runs += 1;
    }
    this.startRun();
  }

  private startRun(): void {
    Object.assign(this, { n: 0, meanK: 0, meanY: 0, cxx: 0, cxy: 0, cyy: 0 });
  }
}

/** Σ(y − ȳ − b(k − k̄))² from a run's centred sums. */
function runResidual(cxx: number, cxy: number, cyy: number, slope: number): number {
  return cyy - 2 * slope * cxy + slope * slope * cxx;
}

/** A refresh rate change seen during the session (the window moved to another monitor). */
export interface RefreshChange {
  /** rAF timestamp of the first frame of the window that showed the new rate. */
  atMs: number;
  fromMs: number;
  toMs: number;
}

export interface RefreshWatchOptions {
  /** Consecutive intervals that must all show the new rate (default 30). */
  window: number;
  /** Each of them within this share of their median (default 0.05): steady, not a machine struggling. */
  steadiness: number;
  /** The new period differs from the current one by more than this share (default 0.03). */
  minChange: number;
}

export const DEFAULT_REFRESH_WATCH: RefreshWatchOptions = { window: 30, steadiness: 0.05, minChange: 0.03 };

/**
 * Watches the frames after the warm-up for a change of refresh rate. A change is adopted only when `window`
 * consecutive intervals are steady (each within `steadiness` of their median) at a period more than `minChange`
 * away from the current one: dropped frames under load are irregular and stay drops. A machine that keeps exactly
 * every other refresh for a whole window is read as a half-rate display, which shows each image as long.
 */
export class RefreshWatch {
  private readonly recent: number[] = [];

  constructor(private readonly options: RefreshWatchOptions = DEFAULT_REFRESH_WATCH) {}

  /** Feeds one frame; returns the new estimate when the rate changed at this frame, else null. */
  frame(timestamp: number, currentMs: number): (RefreshEstimate & { sinceMs: number }) | null {
    this.recent.push(timestamp);
    if (this.recent.length > this.options.window + 1) this.recent.shift();
    if (this.recent.length <= this.options.window) return null;
    const median = medianInterval(this.recent);
    if (!(median > 0)) return null;
    if (Math.abs(median - currentMs) <= this.options.minChange * currentMs) return null;
    for (let i = 1; i < this.recent.length; i++) {
      if (Math.abs(this.recent[i] - this.recent[i - 1] - median) > this.options.steadiness * median) return null;
    }
    const estimate = fitRefreshPeriod(this.recent, median);
    if (!(estimate.periodMs > 0)) return null;
    // The first frame whose interval showed the new rate.
    const sinceMs = this.recent[1];
    this.recent.splice(0, this.recent.length - 1);
    return { ...estimate, sinceMs };
  }

  reset(): void {
    this.recent.length = 0;
  }
}
