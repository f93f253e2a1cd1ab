import { describe, expect, it } from 'vitest';
import { CadenceTracker, cadenceRateHz, clipTimeline, frameDueAt, frameStarts, refreshesIn } from './clipCadence';

const constant = (fps: number, frames: number) => clipTimeline(Array.from({ length: frames }, (_, k) => k / fps), 1 / fps);
const durations = (starts: number[]) => starts.slice(1).map((s, k) => s - starts[k]);

describe('frameStarts: clip frame k first on screen at refresh ceil(k·R/f)', () => {
  it('24 fps at 60 Hz: 3, 2, 3, 2 refreshes', () => {
    expect(durations(frameStarts(constant(24, 8), 60))).toEqual([3, 2, 3, 2, 3, 2, 3, 2]);
  });

  it('30 fps at 60 Hz: exactly 2 each; 60 fps at 60 Hz: 1 each; 25 fps at 60 Hz: 3, 2, 3, 2, 2', () => {
    expect(durations(frameStarts(constant(30, 30), 60))).toEqual(Array(30).fill(2));
    expect(durations(frameStarts(constant(60, 60), 60))).toEqual(Array(60).fill(1));
    expect(durations(frameStarts(constant(25, 5), 60))).toEqual([3, 2, 3, 2, 2]);
  });

  it('every rate × display of the proof: the clip lasts round-up(N·R/f) refreshes, each frame ⌊R/f⌋ or ⌈R/f⌉', () => {
    for (const fps of [24, 25, 30, 50, 60]) {
      for (const hz of [60, 120, 144, 240]) {
        const starts = frameStarts(constant(fps, fps * 10), hz);
        expect(starts.at(-1)).toBe(10 * hz);
        for (const d of durations(starts)) expect([Math.floor(hz / fps), Math.ceil(hz / fps)]).toContain(d);
      }
    }
  });

  it('frameDueAt is the frame whose interval holds the refresh', () => {
    const starts = frameStarts(constant(24, 4), 60); // [0, 3, 5, 8, 10]
    expect([0, 1, 2, 3, 4, 5, 7, 8, 9].map((n) => frameDueAt(starts, n))).toEqual([0, 0, 0, 1, 1, 2, 2, 3, 3]);
  });
});

describe('cadenceRateHz', () => {
  it('uses the nominal rate within 1 % of the measured one (rAF coarsening cannot move a boundary), else the measured', () => {
    expect(cadenceRateHz(16.7)).toBe(60);
    expect(cadenceRateHz(1000 / 59.94)).toBe(60);
    expect(cadenceRateHz(6.9)).toBe(144);
    expect(cadenceRateHz(4.2)).toBe(240);
    expect(cadenceRateHz(1000 / 110)).toBeCloseTo(110, 9);
  });
});

describe('refreshesIn', () => {
  it('counts the refreshes a clock interval spanned', () => {
    expect(refreshesIn(null, 16.7)).toBe(1);
    expect(refreshesIn(16.6, 16.7)).toBe(1);
    expect(refreshesIn(33.3, 16.7)).toBe(2);
    expect(refreshesIn(3, 16.7)).toBe(1);
  });
});

describe('CadenceTracker', () => {
  const starts = frameStarts(constant(30, 5), 60); // [0, 2, 4, 6, 8, 10]

  it('exact cadence: every frame drawn for its refreshes, nothing skipped or repeated', () => {
    const t = new CadenceTracker(starts);
    for (let n = 0; n < 10; n++) t.drew(n, frameDueAt(starts, n), 1000 + n * 16.7);
    expect(t.finish(10, 1167)).toEqual({
      frames: 5,
      drawnFrames: 5,
      skippedFrames: 0,
      repeatedFrames: 0,
      firstFrame: 0,
      firstOnsetMs: 1000,
      lastFrame: 4,
      lastOnsetMs: 1000 + 8 * 16.7,
      lastOffsetMs: 1167,
    });
  });

  it('a late frame: the one before is repeated, the late one named with its lateness', () => {
    const t = new CadenceTracker(starts);
    // Frame 2 was due at refresh 4 but came at 5 (a late decode): frame 1 stayed 3 refreshes.
    [0, 0, 1, 1, 1, 2, 3, 3, 4, 4].forEach((k, n) => t.drew(n, k, n));
    expect(t.finish(10, 10)).toMatchObject({
      drawnFrames: 5,
      skippedFrames: 0,
      repeatedFrames: 1,
      repeats: [{ frame: 1, refresh: 4, refreshes: 1 }],
      late: [{ frame: 2, refresh: 4, refreshes: 1 }],
    });
  });

  it('a skipped frame (two refreshes dropped): named with the refresh it was due at', () => {
    const t = new CadenceTracker(starts);
    t.drew(0, 0, 0);
    t.drew(1, 0, 1);
    // The clock's next frame came 3 refreshes later (refresh 4): frame 1 was never drawn.
    t.drew(4, 2, 4);
    t.drew(6, 3, 6);
    t.drew(8, 4, 8);
    expect(t.finish(10, 10)).toMatchObject({
      drawnFrames: 4,
      skippedFrames: 1,
      skips: [{ frame: 1, refresh: 2 }],
      repeatedFrames: 1,
      repeats: [{ frame: 0, refresh: 2, refreshes: 2 }],
    });
  });

  it('an element that ends a refresh late: the last frame is repeated by the overstay', () => {
    const t = new CadenceTracker(starts);
    for (let n = 0; n < 10; n++) t.drew(n, frameDueAt(starts, n), n);
    expect(t.finish(11, 11)).toMatchObject({ repeatedFrames: 1, repeats: [{ frame: 4, refresh: 10, refreshes: 1 }] });
  });

  it('a step cut short: frames not yet due are neither drawn nor skipped', () => {
    const t = new CadenceTracker(starts);
    for (let n = 0; n < 5; n++) t.drew(n, frameDueAt(starts, n), n);
    expect(t.finish(5, 5)).toMatchObject({ frames: 5, drawnFrames: 3, skippedFrames: 0, repeatedFrames: 0, lastFrame: 2 });
  });

  it('an unknown timeline counts drawn frames only', () => {
    const t = new CadenceTracker(null);
    [0, 0, 33000, 66000, 66000].forEach((k, n) => t.drew(n, k, n));
    expect(t.finish(5, 5)).toMatchObject({ frames: null, drawnFrames: 3, skippedFrames: null, repeatedFrames: null });
  });
});

describe('clipTimeline', () => {
  it('sorts decode-order timestamps, starts at 0, and ends after the last frame', () => {
    expect(clipTimeline([0.5, 0.53, 0.51], 0.01)).toEqual({ timestamps: [0, expect.closeTo(0.01, 9), expect.closeTo(0.03, 9)], endTime: expect.closeTo(0.04, 9) });
    expect(clipTimeline([0, 0.04, 0.08], null).endTime).toBeCloseTo(0.12, 9);
  });

  it('puts a nominal-rate clip with millisecond timestamps (WebM) on its exact grid: 30 fps stays 2 refreshes a frame', () => {
    const webm = Array.from({ length: 30 }, (_, k) => Math.round((k * 1000) / 30) / 1000);
    const timeline = clipTimeline(webm, 0.033);
    expect(timeline.timestamps[2]).toBe(2 / 30);
    expect(timeline.endTime).toBe(1);
    expect(durations(frameStarts(timeline, 60))).toEqual(Array(30).fill(2));
    // 23.976 fps is told from 24 by where its timestamps fall.
    const ntsc = clipTimeline(Array.from({ length: 48 }, (_, k) => Math.round((k * 1001000) / 24000) / 1000), null);
    expect(ntsc.endTime).toBeCloseTo((48 * 1001) / 24000, 12);
  });

  it('keeps the timestamps of a variable-rate clip (MediaRecorder)', () => {
    expect(clipTimeline([0, 0.031, 0.07, 0.1], 0.03).timestamps).toEqual([0, 0.031, 0.07, expect.closeTo(0.1, 12)]);
  });
});
