/**
 * Stand-ins for a display in the stage's pure tests: a fake requestAnimationFrame and the rAF timestamps a real
 * display gives (vsync grid, jitter, missed vsyncs, Chromium's 0.1 ms coarsening).
 */
import type { FrameScheduler } from '../src/web/stage/frameClock';

/** A requestAnimationFrame stand-in: frames fire only when the test says so, at the timestamp it gives. */
export class FakeFrames implements FrameScheduler {
  private callbacks = new Map<number, (t: number) => void>();
  private next = 1;

  request(callback: (t: number) => void): number {
    const handle = this.next++;
    this.callbacks.set(handle, callback);
    return handle;
  }

  cancel(handle: number): void {
    this.callbacks.delete(handle);
  }

  get pending(): number {
    return this.callbacks.size;
  }

  /** Fire one frame at timestamp t. */
  frame(t: number): void {
    const due = [...this.callbacks.values()];
    this.callbacks.clear();
    due.forEach((callback) => callback(t));
  }

  /** Fire frames at t0, t0 + period, ... (count frames); returns the next timestamp. */
  run(t0: number, period: number, count: number): number {
    for (let i = 0; i < count; i++) this.frame(t0 + i * period);
    return t0 + count * period;
  }
}

export interface DisplayModel {
  hz: number;
  /** Frames delivered. */
  frames: number;
  /** First vsync time, ms (default 1234.5678). */
  startMs?: number;
  /** Uniform jitter of each timestamp in ±jitterMs (default 0). */
  jitterMs?: number;
  /** Refreshes skipped before frame k (k from 0), e.g. {30: 1} = a missed vsync before frame 30. */
  missed?: Record<number, number>;
  /** Coarsening step, ms (Chromium: 0.1; 0 for none). */
  coarsenMs?: number;
  seed?: number;
}

/** rAF timestamps of a display: vsync grid + jitter, missed vsyncs, floored to the coarsening step. */
export function displayTimestamps(model: DisplayModel): { timestamps: number[]; vsyncs: number[] } {
  const period = 1000 / model.hz;
  const coarsen = model.coarsenMs ?? 0.1;
  let state = model.seed ?? 12345;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const timestamps: number[] = [];
  const vsyncs: number[] = [];
  let vsync = 0;
  for (let k = 0; k < model.frames; k++) {
    vsync += k === 0 ? 0 : 1 + (model.missed?.[k] ?? 0);
    const exact = (model.startMs ?? 1234.5678) + vsync * period + (model.jitterMs ? (random() * 2 - 1) * model.jitterMs : 0);
    timestamps.push(coarsen > 0 ? Math.floor(exact / coarsen + 1e-9) * coarsen : exact);
    vsyncs.push(vsync);
  }
  return { timestamps, vsyncs };
}
