/**
 * Interruptions on the virtual display (issue 36): the stage's WebGL context lost in the middle of a step, then
 * restored. Every frame is captured; what the screen showed is read from its pixels and compared with the record.
 * The record must never count a refresh the screen did not show, must name the interruption, and the play after
 * the restore must be exact again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveBenchPage } from '../../../bench/timing/benchPage';
import { shownRuns } from '../../../testkit/captureRuns';
import { codeImagePng } from '../../../testkit/frameCode';
import { VirtualDisplay } from '../../../testkit/virtualDisplay';
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

/** The refreshes the capture showed the code, from the pixels alone (0 when it never appeared). */
async function refreshesShown(frames: Awaited<ReturnType<typeof display.evaluate>>['frames']): Promise<number> {
  const runs = (await shownRuns(frames, RECT.x + RECT.width / 2, RECT.y + RECT.height / 2)).filter((r) => r.code === CODE);
  return runs.reduce((n, run) => n + (run.refreshes ?? 0), 0);
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
    const again = await display.evaluate(
      async (s) => {
        await window.__bench.startPlay(s);
        return window.__bench.playing!;
      },
      [step],
      { capture: true },
    );
    const records = again.value as PresentationRecord[];
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

