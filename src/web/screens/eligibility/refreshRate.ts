/**
 * The display's refresh period for the eligibility screen's minimum-rate check: requestAnimationFrame timestamps
 * over about a second, fitted like the stage does (src/web/stage/refreshEstimate.ts: a fit over many frames with
 * drops left out, not a median of coarsened intervals).
 */
import { fitRefreshPeriod } from '../../stage/refreshEstimate.js';

export interface RefreshMeasureOptions {
  /** Frames ignored first (the page is still settling). */
  skipFrames: number;
  /** Intervals wanted. */
  frames: number;
  /** Stop after this long even with fewer frames (at least 10 intervals are needed for an answer). */
  maxMs: number;
}

const DEFAULTS: RefreshMeasureOptions = { skipFrames: 5, frames: 90, maxMs: 2000 };

/** Resolves with the refresh period (ms), or null when too few frames came (a hidden tab, a stalled page). */
export function measureRefreshMs(win: Window, options: Partial<RefreshMeasureOptions> = {}): Promise<number | null> {
  const { skipFrames, frames, maxMs } = { ...DEFAULTS, ...options };
  return new Promise((resolve) => {
    const stamps: number[] = [];
    let seen = 0;
    const started = win.performance.now();
    const done = () => resolve(stamps.length > 10 ? fitRefreshPeriod(stamps).periodMs : null);
    // A page that gets no frames at all (background tab) must still answer.
    const timer = win.setTimeout(done, maxMs + 500);
    const tick = (t: number) => {
      seen += 1;
      if (seen > skipFrames) stamps.push(t);
      if (stamps.length > frames || t - started > maxMs) {
        win.clearTimeout(timer);
        done();
        return;
      }
      win.requestAnimationFrame(tick);
    };
    win.requestAnimationFrame(tick);
  });
}
