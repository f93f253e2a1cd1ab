/**
 * The refresh period from a fit over many frames, and the records it gives, at the rates participants' displays
 * run (59.94 to 240 Hz), with Chromium's 0.1 ms coarsening, jitter and missed vsyncs. The display is simulated
 * (testkit/fakeFrames.ts); the same rules run on real frames in stage.display.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { displayTimestamps, FakeFrames } from '../../../testkit/fakeFrames';
import { durationToFrames, FrameClock } from './frameClock';
import { fitRefreshPeriod, medianInterval, RefreshWatch, RunningPeriodFit } from './refreshEstimate';
import { StepSequencer } from './stepSequencer';
import type { SequencedStep } from './stepSequencer';

const RATES = [59.94, 60, 75, 120, 144, 165, 240];

describe('fitRefreshPeriod', () => {
  it.each(RATES)('is within 0.01 ms of the true period at %s Hz over 60 coarsened frames, where the median is not', (hz) => {
    const { timestamps } = displayTimestamps({ hz, frames: 61 });
    const fit = fitRefreshPeriod(timestamps);
    expect(Math.abs(fit.periodMs - 1000 / hz)).toBeLessThan(0.01);
    expect(fit.uncertaintyMs).toBeLessThan(0.002);
    expect(fit.intervals).toBe(60);
  });

  it('shows why: the median of coarsened intervals is off by up to 0.05 ms (6.900 for 6.944 at 144 Hz)', () => {
    const { timestamps } = displayTimestamps({ hz: 144, frames: 61, startMs: 1000 });
    expect(medianInterval(timestamps)).toBeCloseTo(6.9, 6);
    expect(fitRefreshPeriod(timestamps).periodMs).toBeCloseTo(1000 / 144, 3);
  });

  it.each(RATES)('leaves out dropped frames and stays within 0.01 ms with ±0.5 ms jitter at %s Hz', (hz) => {
    const { timestamps } = displayTimestamps({ hz, frames: 121, jitterMs: 0.5, missed: { 10: 1, 40: 3, 41: 1, 90: 2 } });
    const fit = fitRefreshPeriod(timestamps);
    expect(Math.abs(fit.periodMs - 1000 / hz)).toBeLessThan(0.01);
    expect(fit.intervals).toBe(116); // 120 intervals, 4 of them drops
    expect(fit.uncertaintyMs).toBeGreaterThan(0);
  });
});

describe('FrameClock refresh estimate', () => {
  function clockOn(hz: number, frames: number, missed: Record<number, number> = {}, jitterMs = 0) {
    const fake = new FakeFrames();
    const clock = new FrameClock(fake);
    const seen: Array<{ dropped: boolean; refreshMs: number | null | undefined }> = [];
    clock.onFrame((f) => seen.push({ dropped: f.dropped, refreshMs: f.refreshMs }));
    clock.start();
    const { timestamps } = displayTimestamps({ hz, frames, missed, jitterMs });
    timestamps.forEach((t) => fake.frame(t));
    return { clock, seen, fake, last: timestamps[timestamps.length - 1] };
  }

  it.each(RATES)('measures %s Hz within 0.01 ms after the warm-up, with its uncertainty', (hz) => {
    const { clock } = clockOn(hz, 70);
    expect(Math.abs(clock.refreshMs! - 1000 / hz)).toBeLessThan(0.01);
    expect(clock.refresh!.periodMs).toBe(clock.refreshMs);
    expect(clock.refresh!.intervals).toBeGreaterThanOrEqual(60);
    expect(clock.refresh!.uncertaintyMs).toBeLessThan(0.002);
    expect(clock.refreshChanges).toEqual([]);
  });

  it('records a change of rate (window moved from a 144 Hz to a 60 Hz monitor) and counts in the new period after it', () => {
    const { clock, fake, last } = clockOn(144, 100);
    expect(clock.refreshMs).toBeCloseTo(1000 / 144, 2);
    const { timestamps } = displayTimestamps({ hz: 60, frames: 40, startMs: last + 1000 / 60 });
    const refreshSeen: number[] = [];
    clock.onFrame((f) => refreshSeen.push(f.refreshMs!));
    timestamps.forEach((t) => fake.frame(t));
    expect(clock.refreshChanges).toHaveLength(1);
    const [change] = clock.refreshChanges;
    expect(change.fromMs).toBeCloseTo(1000 / 144, 2);
    expect(Math.abs(change.toMs - 1000 / 60)).toBeLessThan(0.01);
    expect(change.atMs).toBe(timestamps[0]);
    // From the frame where the change was seen on, frames carry the new period and are not drops.
    expect(Math.abs(refreshSeen.at(-1)! - 1000 / 60)).toBeLessThan(0.01);
  });

  it('keeps the rate when a loaded machine drops frames irregularly', () => {
    const missed: Record<number, number> = {};
    for (let k = 70; k < 200; k++) if (k % 3 !== 0) missed[k] = 1 + (k % 4);
    const { clock, seen } = clockOn(144, 200, missed, 0.3);
    expect(clock.refreshChanges).toEqual([]);
    expect(Math.abs(clock.refreshMs! - 1000 / 144)).toBeLessThan(0.01);
    expect(seen.filter((f) => f.dropped).length).toBe(Object.keys(missed).length);
  });

  it('RefreshWatch: a steady new rate for a whole window is a change; a shorter run is not', () => {
    const watch = new RefreshWatch({ window: 30, steadiness: 0.05, minChange: 0.03 });
    const { timestamps } = displayTimestamps({ hz: 120, frames: 30 });
    expect(timestamps.map((t) => watch.frame(t, 1000 / 60)).filter(Boolean)).toEqual([]);
    const more = displayTimestamps({ hz: 120, frames: 2, startMs: timestamps[29] + 1000 / 120 }).timestamps;
    const change = watch.frame(more[0], 1000 / 60);
    expect(change && Math.abs(change.periodMs - 1000 / 120)).toBeLessThan(0.01);
  });
});

describe('records at any refresh rate (clock + sequencer, coarsened timestamps)', () => {
  const DURATIONS: Array<[string, (hz: number) => number]> = [
    ['1 frame', (hz) => 1000 / hz],
    ['3 frames', (hz) => 3000 / hz],
    ['50 ms', () => 50],
    ['500 ms', () => 500],
    ['1 s', () => 1000],
    ['10 s', () => 10_000],
  ];

  /** Runs one duration step (plus a following 1-frame step) on a simulated display; returns the record and truth. */
  function present(hz: number, ms: number, missed: Record<number, number> = {}, jitterMs = 0, seed?: number) {
    const fake = new FakeFrames();
    const clock = new FrameClock(fake);
    const frames = 70 + Math.ceil((ms * hz) / 1000) + 20;
    const startMs = seed === undefined ? undefined : 1000 + seed * 0.37;
    const { timestamps, vsyncs } = displayTimestamps({ hz, frames, missed, jitterMs, seed, startMs });
    clock.start();
    let k = 0;
    while (clock.refreshMs === null && k < 70) fake.frame(timestamps[k++]);
    if (clock.refreshMs === null) throw new Error('warm-up too long');
    const steps: SequencedStep[] = [
      { label: 'A', media: ['a'], end: { kind: 'duration', ms } },
      { label: 'B', media: ['b'], end: { kind: 'duration', ms: 1 } },
    ];
    const sequencer = new StepSequencer(steps, clock.refreshMs);
    const shownAt: Array<{ k: number; change: string }> = [];
    clock.onFrame((f) => {
      const change = sequencer.frame(f);
      if (change.kind !== 'none') shownAt.push({ k: f.index - 1, change: change.kind === 'show' ? `show ${change.index}` : 'finish' });
    });
    while (!sequencer.finished) {
      if (k >= timestamps.length) throw new Error('the steps did not end within the frames simulated');
      fake.frame(timestamps[k++]);
    }
    // What the display showed: refreshes between the frame that drew A and the frame that drew B.
    const onsetA = shownAt[0].k;
    const onsetB = shownAt[1].k;
    return { record: sequencer.records[0], capturedRefreshes: vsyncs[onsetB] - vsyncs[onsetA], onsetA, periodAtOnset: clock.refresh! };
  }

  for (const hz of [60, 120, 144, 165, 240]) {
    for (const [name, ms] of DURATIONS) {
      it(`${hz} Hz, ${name}: requested = shown = rendered = true frame count, record = display`, () => {
        const expected = durationToFrames(ms(hz), 1000 / hz);
        const { record, capturedRefreshes } = present(hz, ms(hz), {}, 0.2);
        expect(record).toMatchObject({ requestedFrames: expected, shownFrames: expected, renderedFrames: expected, droppedFrames: 0 });
        expect(capturedRefreshes).toBe(expected);
      });
    }
  }

  it('165 Hz, 500 ms (82.5 periods, a half frame): 83 frames whichever side of the tie the fitted period falls', () => {
    const sides = new Set<boolean>();
    for (let seed = 1; seed <= 40; seed++) {
      const { record, capturedRefreshes, periodAtOnset } = present(165, 500, {}, 0.3, seed);
      sides.add(periodAtOnset.periodMs > 1000 / 165);
      expect(record).toMatchObject({ requestedFrames: 83, shownFrames: 83, renderedFrames: 83, droppedFrames: 0 });
      expect(capturedRefreshes).toBe(83);
    }
    // The fits fell on both sides of the true period, where plain rounding gives 82 on one side and 83 on the other.
    expect([...sides].sort()).toEqual([false, true]);
  });

  it.each([60, 144, 240])('%s Hz: a missed vsync inside a 500 ms step is charged to it, shown counts the refresh it spanned, no overstay', (hz) => {
    const expected = Math.round(hz / 2);
    // Warm-up ends after 66 frames; miss a vsync 10 frames into the step.
    const { record, capturedRefreshes } = present(hz, 500, { 80: 1 });
    expect(record.droppedFrames).toBe(1);
    expect(record.shownFrames).toBe(capturedRefreshes);
    expect(record.shownFrames).toBe(expected);
    expect(record.renderedFrames).toBe(expected - 1);
  });

  it.each([60, 144, 240])('%s Hz: a missed switch frame makes the step overstay by one refresh, and its record says so', (hz) => {
    const expected = Math.round(hz / 2);
    const probe = present(hz, 500);
    // The frame that should have drawn B comes one vsync late.
    const switchFrame = probe.onsetA + expected;
    const { record, capturedRefreshes } = present(hz, 500, { [switchFrame]: 1 });
    expect(capturedRefreshes).toBe(expected + 1);
    expect(record).toMatchObject({ requestedFrames: expected, shownFrames: expected + 1, droppedFrames: 1 });
  });
});

describe('repeated timestamps', () => {
  it('repeated rAF timestamps (two callbacks in one frame) are left out: the period is right, never 0', () => {
    expect(fitRefreshPeriod([10, 10, 10, 10, 26.7, 26.7, 26.7, 26.7, 43.4]).periodMs).toBeCloseTo(16.7, 9);
    expect(Number.isNaN(fitRefreshPeriod([10, 10, 10]).periodMs)).toBe(true);
    const fake = new FakeFrames();
    const clock = new FrameClock(fake);
    clock.start();
    // A frozen timestamp first: no period yet, the clock keeps measuring.
    for (let i = 0; i < 80; i++) fake.frame(1000);
    expect(clock.refreshMs).toBeNull();
    const { timestamps } = displayTimestamps({ hz: 60, frames: 70, startMs: 3000 });
    timestamps.forEach((t) => fake.frame(t));
    expect(Math.abs(clock.refreshMs! - 1000 / 60)).toBeLessThan(0.01);
  });
});

describe('RunningPeriodFit', () => {
  it('agrees with the batch fit, drops excluded, and keeps its precision over 100 000 frames', () => {
    const { timestamps } = displayTimestamps({ hz: 144, frames: 2000, jitterMs: 0.3, missed: { 100: 1, 500: 2, 1500: 1 } });
    const running = new RunningPeriodFit();
    timestamps.forEach((t) => running.add(t, 1000 / 144));
    const batch = fitRefreshPeriod(timestamps, 1000 / 144);
    const online = running.estimate()!;
    expect(online.periodMs).toBeCloseTo(batch.periodMs, 9);
    expect(online.intervals).toBe(batch.intervals);
    expect(online.uncertaintyMs).toBeCloseTo(batch.uncertaintyMs, 6);
    const long = displayTimestamps({ hz: 165, frames: 100_000, jitterMs: 0.5, startMs: 5e6 });
    const fit = new RunningPeriodFit();
    long.timestamps.forEach((t) => fit.add(t, 6.1));
    expect(Math.abs(fit.estimate()!.periodMs - 1000 / 165)).toBeLessThan(1e-5);
  });
});
