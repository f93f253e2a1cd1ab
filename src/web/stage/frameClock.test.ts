import { describe, expect, it } from 'vitest';
import { durationToFrames, FrameClock, isDroppedInterval, medianInterval } from './frameClock';
import type { FrameInfo } from './frameClock';
import { FakeFrames } from '../../../testkit/fakeFrames';

describe('durationToFrames', () => {
  it('rounds to the nearest frame at the measured refresh, not at an assumed 60 Hz', () => {
    expect(durationToFrames(1000, 1000 / 60)).toBe(60);
    expect(durationToFrames(1000, 1000 / 144)).toBe(144);
    expect(durationToFrames(500, 1000 / 144)).toBe(72);
    expect(durationToFrames(1000, 1000 / 75)).toBe(75);
    // 1000 ms at 59.94 Hz is 59.94 frames: nearest is 60.
    expect(durationToFrames(1000, 1000 / 59.94)).toBe(60);
    // 1000 ms / 16.9 ms = 59.17 frames: nearest is 59, not 60 (no ceil).
    expect(durationToFrames(1000, 16.9)).toBe(59);
    // 25 ms at 60 Hz = 1.5 frames rounds up; 24 ms = 1.44 rounds down.
    expect(durationToFrames(25, 1000 / 60)).toBe(2);
    expect(durationToFrames(24, 1000 / 60)).toBe(1);
  });

  it('gives a positive duration at least one frame and nothing to zero', () => {
    expect(durationToFrames(3, 1000 / 60)).toBe(1);
    expect(durationToFrames(0, 1000 / 60)).toBe(0);
    expect(durationToFrames(-5, 1000 / 60)).toBe(0);
  });

  it('rounds a half frame up, and every count the period\'s uncertainty cannot tell from a half frame', () => {
    // 500 ms at 165 Hz is 82.5 periods: 83 with the exact period, and with a fitted one a hair off either side.
    expect(durationToFrames(500, 1000 / 165)).toBe(83);
    expect(durationToFrames(500, 6.0607, 0.0001)).toBe(83); // 82.4987 periods; 3σ is 0.004 frames
    expect(durationToFrames(500, 6.0605, 0.0001)).toBe(83); // 82.5014 periods
    // Without an uncertainty (or one too small to reach the half frame) the nearest frame is kept.
    expect(durationToFrames(500, 6.0607)).toBe(82);
    expect(durationToFrames(500, 6.0607, 0.00001)).toBe(82);
    // The band is capped at 0.1 frame: 1000 ms / 16.6 ms = 60.24 periods is no tie even with σ = 0.05 ms.
    expect(durationToFrames(1000, 16.6, 0.05)).toBe(60);
    // A period too uncertain to tell (σ = 1 ms) keeps the nearest frame rather than rounding everything up.
    expect(durationToFrames(1000, 1000 / 60 + 0.2, 1)).toBe(59);
    expect(durationToFrames(1000, 1000 / 60, Number.POSITIVE_INFINITY)).toBe(60);
    // A tie below one frame still shows the step once.
    expect(durationToFrames(1000 / 120, 1000 / 60, 0.001)).toBe(1);
  });

  it('refuses a refresh period that is not positive', () => {
    expect(() => durationToFrames(1000, 0)).toThrow(RangeError);
    expect(() => durationToFrames(1000, Number.NaN)).toThrow(RangeError);
  });
});

describe('dropped-frame detection', () => {
  it('flags an interval over 1.5 refresh periods only', () => {
    const period = 1000 / 60;
    expect(isDroppedInterval(period, period)).toBe(false);
    expect(isDroppedInterval(1.5 * period, period)).toBe(false);
    expect(isDroppedInterval(1.5 * period + 0.01, period)).toBe(true);
    expect(isDroppedInterval(2 * period, period)).toBe(true);
    // At 144 Hz a 60 Hz-sized interval is a drop.
    expect(isDroppedInterval(1000 / 60, 1000 / 144)).toBe(true);
  });
});

describe('medianInterval', () => {
  it('ignores a few outliers', () => {
    expect(medianInterval([0, 10, 20, 30, 130, 140])).toBe(10);
    expect(medianInterval([0, 6.9, 13.9, 20.8])).toBeCloseTo(6.9, 5);
  });
});

describe('FrameClock', () => {
  it('measures the refresh as the median interval after the warm-up and resolves whenMeasured', async () => {
    const frames = new FakeFrames();
    const clock = new FrameClock(frames, { skipFrames: 2, frames: 10 });
    const measured = clock.whenMeasured();
    clock.start();
    // Irregular start (skipped), then 144 Hz with one long frame in the middle.
    frames.frame(0);
    frames.frame(100);
    let t = 200;
    for (let i = 0; i < 11; i++) {
      frames.frame(t);
      t += i === 5 ? 30 : 1000 / 144;
    }
    expect(clock.refreshMs).toBeCloseTo(1000 / 144, 6);
    await expect(measured).resolves.toBeCloseTo(1000 / 144, 6);
  });

  it('stops waiting for more warm-up frames after maxMs when rAF is slow', () => {
    const frames = new FakeFrames();
    const clock = new FrameClock(frames, { skipFrames: 0, frames: 60, maxMs: 1000, minFrames: 10 });
    clock.start();
    frames.run(0, 100, 12); // 11 intervals of 100 ms reach 1000 ms
    expect(clock.refreshMs).toBe(100);
  });

  it('reports every frame with its interval and flags the long ones as dropped', () => {
    const frames = new FakeFrames();
    const clock = new FrameClock(frames, { skipFrames: 0, frames: 5 });
    const seen: FrameInfo[] = [];
    clock.onFrame((f) => seen.push(f));
    clock.start();
    let t = frames.run(1000, 10, 6); // warm-up: refresh 10 ms
    expect(clock.refreshMs).toBe(10);
    frames.frame(t); // 10 ms
    frames.frame((t += 10) + 15); // 25 ms: dropped
    frames.frame(t + 15 + 15); // 15 ms: not dropped
    const tail = seen.slice(-3);
    expect(tail.map((f) => f.intervalMs)).toEqual([10, 25, 15]);
    expect(tail.map((f) => f.dropped)).toEqual([false, true, false]);
    expect(seen[0].intervalMs).toBeNull();
    expect(clock.frameCount).toBe(9);
    expect(seen.map((f) => f.index)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('does not count the time it was stopped as a dropped frame, and keeps one rAF request at a time', () => {
    const frames = new FakeFrames();
    const clock = new FrameClock(frames, { skipFrames: 0, frames: 3 });
    const seen: FrameInfo[] = [];
    clock.onFrame((f) => seen.push(f));
    clock.start();
    clock.start();
    expect(frames.pending).toBe(1);
    frames.run(0, 10, 5);
    clock.stop();
    expect(frames.pending).toBe(0);
    clock.start();
    frames.frame(5000);
    expect(seen.at(-1)).toMatchObject({ intervalMs: null, dropped: false });
  });

  it('keeps ticking when a listener throws', () => {
    const frames = new FakeFrames();
    const clock = new FrameClock(frames, { skipFrames: 0, frames: 3 });
    clock.onFrame(() => {
      throw new Error('listener failure');
    });
    clock.start();
    expect(() => frames.frame(0)).toThrow('listener failure');
    expect(frames.pending).toBe(1);
  });
});
