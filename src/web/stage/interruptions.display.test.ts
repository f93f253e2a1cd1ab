/**
 * Interruptions on the virtual display (issue 36): the stage's WebGL context lost in the middle of a step, then
 * restored; the refresh rate or the device pixel ratio changed mid-step; the page hidden mid-step (its window
 * minimized), then shown again. Every frame is captured; what the screen showed is read from its pixels and compared
 * with the record. The record must never count a refresh the screen did not show, must name the interruption, and
 * the play after it must be exact again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveBenchPage } from '../../../bench/timing/benchPage';
import { shownRuns } from '../../../testkit/captureRuns';
import { codeImagePng, decodePng } from '../../../testkit/frameCode';
import { VirtualDisplay, type DisplayFrame } from '../../../testkit/virtualDisplay';
import type { PresentationRecord, PresentationStep } from './types';

const RECT = { x: 200, y: 120, width: 64, height: 36 };
const CODE = 77;
const HZ = 60;

let served: { url: string; close(): Promise<void> };
let display: VirtualDisplay;

beforeAll(async () => {
  served = await serveBenchPage({ outDir: 'interruptions-display-test' });
  display = await VirtualDisplay.launch({ refreshHz: HZ, width: 640, height: 360 });
  await display.goto(served.url);
  await display.evaluate(() => window.__bench.ready(), null);
  const base64 = (await codeImagePng(CODE, RECT.width, RECT.height)).toString('base64');
  await display.evaluate(([name, data]) => window.__bench.addBase64(name, 'image', 'image/png', data), [`code${CODE}.png`, base64] as const);
  await display.evaluate((names) => window.__bench.prepare(names), [`code${CODE}.png`]);
}, 180_000);

afterAll(async () => {
  await display?.close();
  await served?.close();
});

const step: PresentationStep = { label: 'image', items: [{ media: `code${CODE}.png`, rect: RECT }], end: { kind: 'duration', ms: (60 * 1000) / HZ } };

/** Plays `s` from the start, capturing every frame: what the play resolved with, and the frames. */
async function playCaptured(s: PresentationStep): Promise<{ records: PresentationRecord[]; frames: DisplayFrame[] }> {
  const { value, frames } = await display.evaluate(
    async (steps) => {
      await window.__bench.startPlay(steps);
      return window.__bench.playing!;
    },
    [s],
    { capture: true },
  );
  return { records: value as PresentationRecord[], frames };
}

/**
 * The refreshes the capture showed the code, from the pixels alone (0 when it never appeared), read at the rect's
 * centre in the capture's own pixels (CSS px × its ratio). With `offScreenFrom`, the page left the screen at that
 * refresh (its window minimized): a run still up when the frames end counts the refreshes before it.
 */
async function refreshesShown(frames: readonly DisplayFrame[], offScreenFrom?: number): Promise<number> {
  const scale = (await decodePng(frames[0]!.png!)).width / display.width;
  const runs = (await shownRuns(frames, (RECT.x + RECT.width / 2) * scale, (RECT.y + RECT.height / 2) * scale)).filter((r) => r.code === CODE);
  return runs.reduce((n, run) => n + (run.refreshes ?? (offScreenFrom === undefined ? 0 : offScreenFrom - frames[run.start]!.vsync)), 0);
}

describe('a lost WebGL context', () => {
  it('ends the step at once, named in its record, counting only the refreshes captured; after the restore a play is exact again', async () => {
    // A 60-frame step; the context is lost 20 frames after the play starts (the page counts its own frames).
    const { value, frames } = await display.evaluate(
      async (s) => {
        await window.__bench.startPlay(s);
        const canvas = document.querySelector('canvas')!;
        const gl = (canvas.getContext('webgl2') ?? canvas.getContext('webgl'))!;
        const lose = gl.getExtension('WEBGL_lose_context')!;
        await new Promise<void>((resolve) => {
          let n = 0;
          const tick = () => (++n === 20 ? resolve() : requestAnimationFrame(tick));
          requestAnimationFrame(tick);
        });
        lose.loseContext();
        const outcome = await window.__bench.playing!;
        (window as unknown as { restoreStage: () => void }).restoreStage = () => lose.restoreContext();
        return outcome;
      },
      [step],
      { capture: true },
    );
    const interrupted = value as { name: string; records: PresentationRecord[] };
    expect(interrupted.name).toBe('StageInterruptedError');
    expect(interrupted.records).toHaveLength(1);
    const [record] = interrupted.records;
    expect(record!.endedBy).toBe('interrupted');
    expect(record!.interrupted).toMatchObject({ cause: 'context-lost' });
    const captured = await refreshesShown(frames);
    // Never a refresh more than the screen showed; the step was cut well short of its 60.
    expect(record!.shownFrames).toBeLessThanOrEqual(captured);
    expect(record!.shownFrames).toBeGreaterThanOrEqual(captured - 1);
    expect(record!.shownFrames).toBeGreaterThan(5);
    expect(record!.shownFrames).toBeLessThan(60);
    expect(record!.interrupted!.refreshes).toBe(record!.shownFrames);

    // Restored: the next play waits for steady frames, then shows the step exactly, as captured.
    await display.evaluate(() => (window as unknown as { restoreStage: () => void }).restoreStage(), null);
    const again = await playCaptured(step);
    const records = again.records;
    expect(Array.isArray(records)).toBe(true);
    expect(records.map((r) => [r.requestedFrames, r.shownFrames, r.droppedFrames, r.endedBy])).toEqual([[60, 60, 0, 'duration']]);
    expect(await refreshesShown(again.frames)).toBe(60);
  }, 180_000);

  it('a change of refresh rate mid-step (the window moved to another screen) ends it as a display change, counting only what was captured', async () => {
    display.setRefreshRate(HZ);
    await display.frames(90);
    const long: PresentationStep = { ...step, end: { kind: 'duration', ms: 3000 } };
    const first = await display.evaluate((s) => window.__bench.startPlay(s), [long], { capture: true });
    const frames = [...first.frames, ...(await display.frames(20, { capture: true }))];
    display.setRefreshRate(120);
    const { value, frames: rest } = await display.evaluate(() => window.__bench.playing!, null, { capture: true });
    frames.push(...rest);
    const interrupted = value as { name: string; records: PresentationRecord[] };
    expect(interrupted.name).toBe('StageInterruptedError');
    const [record] = interrupted.records;
    expect([record!.endedBy, record!.interrupted?.cause]).toEqual(['interrupted', 'display-changed']);
    const captured = await refreshesShown(frames);
    expect(record!.shownFrames).toBeLessThanOrEqual(captured);
    expect(record!.shownFrames).toBeGreaterThan(15);
    // Before the 180 refreshes asked for at 60 Hz.
    expect(record!.shownFrames).toBeLessThan(180);
    display.setRefreshRate(HZ);
    await display.frames(90);
  }, 180_000);
});

describe('a hidden page', () => {
  it('ends the step at once, named in its record, counting only the refreshes shown before; once visible again a play is exact', async () => {
    await display.frames(40);
    // The 60-frame step, its window minimized 20 frames after the play starts (Browser.setWindowBounds: the page
    // gets visibilitychange, visibilityState 'hidden', and no more rAF).
    const first = await display.evaluate((s) => window.__bench.startPlay(s), [step], { capture: true });
    const shown = [...first.frames, ...(await display.frames(20, { capture: true }))];
    await display.setWindowState('minimized');
    // While minimized the capture still holds the compositor's last picture, the code, but no screen shows it: the
    // page left the screen during the last refresh shown, so the first frame sent now is the first refresh off it.
    const hidden = await display.frames(30, { capture: true });
    // Already settled: the step ended when the page was hidden, not when it came back.
    const { value } = await display.evaluate(() => window.__bench.playing!, null, { maxFrames: 1 });
    const interrupted = value as { name: string; records: PresentationRecord[] };
    expect(interrupted.name).toBe('StageInterruptedError');
    expect(interrupted.records).toHaveLength(1);
    const [record] = interrupted.records;
    expect([record!.endedBy, record!.interrupted?.cause]).toEqual(['interrupted', 'hidden']);
    const captured = await refreshesShown(shown, hidden[0]!.vsync);
    // Never a refresh more than the screen showed (none of the 30 while minimized); cut well short of its 60.
    expect(record!.shownFrames).toBeLessThanOrEqual(captured);
    expect(record!.shownFrames).toBeGreaterThanOrEqual(captured - 1);
    expect(record!.shownFrames).toBeGreaterThan(15);
    expect(record!.shownFrames).toBeLessThan(60);
    expect(record!.interrupted!.refreshes).toBe(record!.shownFrames);

    // A play asked for while hidden waits: nothing starts until the page is visible and drawing steady again.
    await display.evaluate(
      async (s) => {
        await window.__bench.startPlay(s);
        const w = window as unknown as { playSettled: boolean };
        w.playSettled = false;
        void window.__bench.playing!.then(() => (w.playSettled = true));
      },
      [step],
    );
    await display.frames(20);
    expect(await display.read(() => (window as unknown as { playSettled: boolean }).playSettled, null)).toBe(false);
    await display.setWindowState('normal');
    const again = await display.evaluate(() => window.__bench.playing!, null, { capture: true });
    const records = again.value as PresentationRecord[];
    expect(Array.isArray(records)).toBe(true);
    expect(records.map((r) => [r.requestedFrames, r.shownFrames, r.droppedFrames, r.endedBy])).toEqual([[60, 60, 0, 'duration']]);
    expect(await refreshesShown(again.frames)).toBe(60);
  }, 180_000);
});

describe('a change of device pixel ratio', () => {
  it('mid-step (the window moved to a screen of another scale) ends it as a display change, counting only what was captured; a play after it is exact', async () => {
    await display.frames(40);
    const long: PresentationStep = { ...step, end: { kind: 'duration', ms: 3000 } };
    const first = await display.evaluate((s) => window.__bench.startPlay(s), [long], { capture: true });
    const frames = [...first.frames, ...(await display.frames(20, { capture: true }))];
    // 1 → 2, the same CSS size (Emulation.setDeviceMetricsOverride; the capture stays 640×360, the page scaled to it).
    await display.setDeviceScaleFactor(2);
    expect(await display.read(() => window.devicePixelRatio, null)).toBe(2);
    const { value, frames: rest } = await display.evaluate(() => window.__bench.playing!, null, { capture: true, maxFrames: 10 });
    frames.push(...rest, ...(await display.frames(3, { capture: true })));
    const interrupted = value as { name: string; records: PresentationRecord[] };
    expect(interrupted.name).toBe('StageInterruptedError');
    expect(interrupted.records).toHaveLength(1);
    const [record] = interrupted.records;
    expect([record!.endedBy, record!.interrupted?.cause, record!.pixelRatio]).toEqual(['interrupted', 'display-changed', 1]);
    const captured = await refreshesShown(frames);
    expect(record!.shownFrames).toBeLessThanOrEqual(captured);
    expect(record!.shownFrames).toBeGreaterThanOrEqual(captured - 1);
    expect(record!.shownFrames).toBeGreaterThan(15);
    expect(record!.shownFrames).toBeLessThan(180);
    expect(record!.interrupted!.refreshes).toBe(record!.shownFrames);

    // On the new ratio: the play waits for steady frames, then shows the step exactly, as captured, drawn at the new
    // ratio (a ratio-only change brings no ResizeObserver box under Chromium's emulation, nor in Safari: the stage
    // measures its canvas again when the ratio's media query changes).
    const again = await playCaptured(step);
    const records = again.records;
    expect(Array.isArray(records)).toBe(true);
    expect(records.map((r) => [r.requestedFrames, r.shownFrames, r.droppedFrames, r.endedBy, r.pixelRatio])).toEqual([[60, 60, 0, 'duration', 2]]);
    expect(await refreshesShown(again.frames)).toBe(60);
    expect(await display.read(() => window.__bench.controller!.devicePixels(), null)).toEqual({ width: 1280, height: 720, ratio: 2 });
    await display.setDeviceScaleFactor(1);
    await display.frames(40);
  }, 180_000);
});
