/**
 * The real <Stage> on the virtual display (testkit/virtualDisplay.ts): Chromium draws a frame only when the test
 * sends one, at 144 or 240 Hz, so machine load cannot drop a frame and these checks are deterministic. Every frame
 * is captured and what it shows is read from its pixels (each stimulus is a pixel-code colour), then compared with
 * the stage's own records.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveBenchPage } from '../../../bench/timing/benchPage';
import { shownRuns } from '../../../testkit/captureRuns';
import { codeImagePng } from '../../../testkit/frameCode';
import { VirtualDisplay } from '../../../testkit/virtualDisplay';
import type { DisplayFrame } from '../../../testkit/virtualDisplay';
import type { PresentationRecord, PresentationStep } from './types';
import { en } from '../i18n/en';
import { checkEligibility } from '../screens/eligibility/rules';
import { GENERIC_PAGE_ELIGIBILITY } from '../../protocols/common/eligibility';

const RECT = { x: 200, y: 120, width: 64, height: 36 };
const CODES = [5, 77, 300];

let served: { url: string; close(): Promise<void> };
let display: VirtualDisplay;

beforeAll(async () => {
  served = await serveBenchPage({ outDir: 'stage-display-test' });
  display = await VirtualDisplay.launch({ refreshHz: 144, width: 640, height: 360 });
  await display.goto(served.url);
  await display.evaluate(() => window.__bench.ready(), null);
  for (const id of CODES) {
    const base64 = (await codeImagePng(id, RECT.width, RECT.height)).toString('base64');
    await display.evaluate(([name, data]) => window.__bench.addBase64(name, 'image', 'image/png', data), [`code${id}.png`, base64] as const);
  }
  await display.evaluate((names) => window.__bench.prepare(names), CODES.map((id) => `code${id}.png`));
}, 180_000);

afterAll(async () => {
  await display?.close();
  await served?.close();
});

const step = (id: number, ms: number): PresentationStep => ({ label: `s${id}`, items: [{ media: `code${id}.png`, rect: RECT }], end: { kind: 'duration', ms } });

/** Plays the steps, capturing every frame; returns the records and, per step, the refreshes the capture showed it. */
async function playCaptured(steps: PresentationStep[]) {
  const { value, frames } = await display.evaluate(
    async (s) => {
      await window.__bench.startPlay(s);
      return window.__bench.playing!;
    },
    steps,
    { capture: true },
  );
  if (!Array.isArray(value)) throw new Error(`play failed: ${JSON.stringify(value)}`);
  return { records: value, shown: await refreshesShown(frames, steps.length), frames };
}

/** From the pixels alone: the first `count` stimuli shown, each with the refreshes it stayed up. */
async function refreshesShown(frames: DisplayFrame[], count: number): Promise<Array<{ code: number | null; refreshes: number }>> {
  const runs = (await shownRuns(frames, RECT.x + RECT.width / 2, RECT.y + RECT.height / 2)).filter((r) => r.code !== null).slice(0, count);
  return runs.map((run) => {
    if (run.refreshes === null) throw new Error('the capture ended before the step did');
    return { code: run.code, refreshes: run.refreshes };
  });
}

describe('Stage timing on the virtual display', () => {
  for (const hz of [144, 240]) {
    it(`${hz} Hz: 1 frame, 3 frames and 50 ms steps are shown exactly as requested and recorded as captured`, async () => {
      display.setRefreshRate(hz);
      // The stage re-measures after a change of rate (30 steady frames).
      await display.frames(90);
      const period = 1000 / hz;
      const durations = [period, 3 * period, 50];
      const { records, shown } = await playCaptured([step(CODES[0], durations[0]), step(CODES[1], durations[1]), step(CODES[2], durations[2])]);
      expect(shown.map((s) => s.code)).toEqual(CODES);
      const expected = durations.map((ms) => Math.max(1, Math.round(ms / period)));
      expect(shown.map((s) => s.refreshes)).toEqual(expected);
      expect(records.map((r: PresentationRecord) => [r.requestedFrames, r.shownFrames, r.renderedFrames, r.droppedFrames])).toEqual(
        expected.map((n) => [n, n, n, 0]),
      );
      expect(Math.abs(records[0].refreshMs - period)).toBeLessThan(0.01);
    });
  }

  it('240 Hz: a 500 ms step is 120 refreshes; with a missed vsync inside it, the drop is reported and charged to it', async () => {
    display.setRefreshRate(240);
    await display.frames(10);
    const clean = await playCaptured([step(CODES[0], 500), step(CODES[1], 1000 / 240)]);
    expect(clean.shown[0].refreshes).toBe(120);
    expect(clean.records[0]).toMatchObject({ requestedFrames: 120, shownFrames: 120, renderedFrames: 120, droppedFrames: 0 });
    // Again, with the 21st frame of the play one vsync late: the step is on screen and the display holds it.
    const { value, frames } = await display.evaluate(
      async (s) => {
        await window.__bench.startPlay(s);
        return window.__bench.playing!;
      },
      [step(CODES[0], 500), step(CODES[1], 1000 / 240)],
      { capture: true, plan: (n) => (n === 20 ? { missedVsyncs: 1 } : undefined) },
    );
    const records = value as PresentationRecord[];
    const shown = await refreshesShown(frames, 2);
    expect(shown.map((s) => s.code)).toEqual([CODES[0], CODES[1]]);
    // No overstay: the display showed it 120 refreshes from 119 frames, and the record says so.
    expect(shown[0].refreshes).toBe(120);
    expect(records[0]).toMatchObject({ requestedFrames: 120, shownFrames: 120, renderedFrames: 119, droppedFrames: 1 });
    expect(records[0].drops![0].intervalMs).toBeCloseTo(2000 / 240, 0);
    expect(records[1]).toMatchObject({ droppedFrames: 0, shownFrames: 1 });
  });

  it('refuses a second play() while one runs, without losing the first', async () => {
    display.setRefreshRate(144);
    const { value } = await display.evaluate(
      async (s) => {
        const c = window.__bench.controller!;
        let drawn!: () => void;
        const onset = new Promise<void>((resolve) => (drawn = resolve));
        const first = c.play([s], { onOnset: () => drawn() });
        await onset;
        const second = await c.play([s]).then(
          () => 'accepted',
          (e: Error) => e.message,
        );
        c.release();
        return { second, first: await first };
      },
      { label: 'hold', items: [{ media: `code${CODES[1]}.png`, rect: RECT }], end: { kind: 'hold' } } as PresentationStep,
    );
    expect(value.second).toBe('StageController.play: the stage is already playing');
    expect(value.first).toHaveLength(1);
    expect(value.first[0]).toMatchObject({ label: 'hold', endedBy: 'answer' });
    expect(value.first[0].shownFrames).toBeGreaterThanOrEqual(1);
  });
});

describe('Eligibility refresh rule on the virtual display (job.minRefreshHz 120)', () => {
  const job = { category_id: 1, targetScreenSizeHeight: 0, targetScreenSizeWidth: 0, maxScreenSizeHeight: 0, maxScreenSizeWidth: 0, minRefreshHz: 120 };
  const line = (refreshMs: number | null) =>
    checkEligibility(
      { rules: GENERIC_PAGE_ELIGIBILITY, browserName: 'Chrome', browserVersion: '156', osName: 'Windows', osVersion: '10', screen: { width: 1920, height: 1080 }, zoom: 100, job, swapSizes: false, refreshMs },
      en,
    ).find((r) => r.id === 'refresh')!;

  it.each([
    [30, false, '30.0 Hz'],
    [144, true, '144 Hz'],
    [240, true, '240 Hz'],
  ])('a %s Hz display: measured from frame intervals, pass = %s', async (hz, pass, shown) => {
    display.setRefreshRate(hz);
    const { value } = await display.evaluate(() => window.__bench.measureRefreshMs(), null);
    expect(Math.abs(value! - 1000 / hz)).toBeLessThan(0.01);
    expect(line(value)).toMatchObject({ pass, value: shown });
  });
});

describe('duration to frames at 144 and 240 Hz on the virtual display', () => {
  it.each([144, 240])('%s Hz: 1 s is exactly one second of refreshes, recorded as captured', async (hz) => {
    display.setRefreshRate(hz);
    await display.frames(90);
    const { records, shown } = await playCaptured([step(CODES[2], 1000), step(CODES[0], 1000 / hz)]);
    expect(shown[0]).toEqual({ code: CODES[2], refreshes: hz });
    expect(records[0]).toMatchObject({ requestedFrames: hz, shownFrames: hz, renderedFrames: hz, droppedFrames: 0 });
  });
});

describe('a duration on a half frame on the virtual display', () => {
  it('165 Hz: 500 ms (82.5 periods) is 83 refreshes every time, recorded as captured, whatever the fit\'s last digits', async () => {
    display.setRefreshRate(165);
    await display.frames(90);
    for (let rep = 0; rep < 3; rep++) {
      const { records, shown } = await playCaptured([step(CODES[rep], 500), step(CODES[(rep + 1) % 3], 1000 / 165)]);
      expect(shown[0]).toEqual({ code: CODES[rep], refreshes: 83 });
      expect(records[0]).toMatchObject({ requestedFrames: 83, shownFrames: 83, renderedFrames: 83, droppedFrames: 0 });
    }
  });
});
