/**
 * The real <Stage> in headless Chromium (SwiftShader WebGL2), through the bench page (bench/timing/page.html,
 * which mounts the Stage lazily like the flow does). Pixels are read back with the documented debug hook
 * window.__glimpseStage.probe. No timing thresholds here: timing figures belong to `npm run bench:timing`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '@playwright/test';
import { openBenchPage } from '../../../bench/timing/benchPage';
import type { BenchPage } from '../../../bench/timing/benchPage';
import { layoutOneAfterAnother, layoutSideBySide } from './layouts';
import type { PresentationRecord, PresentationStep } from './types';

const RED = [255, 0, 0, 255];
const BLUE = [0, 0, 255, 255];
const GREY = [128, 128, 128, 255];

let bench: BenchPage;
let page: Page;
let canvas: { width: number; height: number };
let refreshMs: number;

async function probe(x: number, y: number): Promise<number[]> {
  return page.evaluate(([px, py]) => window.__glimpseStage!.probe(px, py), [x, y]);
}

async function waitForColor(x: number, y: number, rgba: number[]): Promise<void> {
  await expect.poll(() => probe(x, y), { timeout: 15000, interval: 50 }).toEqual(rgba);
}

async function startPlay(steps: PresentationStep[]): Promise<void> {
  await page.evaluate((s) => window.__bench.startPlay(s), steps);
}

async function finished(): Promise<PresentationRecord[] | { error: string; name: string }> {
  return page.evaluate(() => window.__bench.playing!);
}

const centre = (rect: { x: number; y: number; width: number; height: number }) => [rect.x + rect.width / 2, rect.y + rect.height / 2];

beforeAll(async () => {
  bench = await openBenchPage({ outDir: 'stage-browser-test' });
  page = bench.page;
  ({ refreshMs, size: canvas } = await page.evaluate(() => window.__bench.ready()));
  await page.evaluate(async () => {
    await window.__bench.makeSolid('red.png', 160, 90, '#ff0000');
    await window.__bench.makeSolid('blue.png', 160, 90, '#0000ff');
  });
}, 120000);

afterAll(async () => {
  await bench?.close();
});

describe('Stage in Chromium', () => {
  it('measures the refresh, exposes the debug hook and fills its container', async () => {
    expect(refreshMs).toBeGreaterThan(0);
    const hook = await page.evaluate(() => ({ refreshMs: window.__glimpseStage!.refreshMs, frames: window.__glimpseStage!.frameCount, size: window.__glimpseStage!.size() }));
    // The period keeps sharpening as frames come (a fit over the whole session): the hook gives the current one.
    expect(Math.abs(hook.refreshMs - refreshMs)).toBeLessThan(0.01);
    expect(hook.size).toEqual({ width: 640, height: 360 }); // #stage in page.html
    await expect.poll(() => page.evaluate(() => window.__glimpseStage!.frameCount)).toBeGreaterThan(hook.frames);
    expect(await probe(5, 5)).toEqual(GREY);
  });

  it('draws an image pair side by side, then a blank screen, and records the presentation', async () => {
    const sizes = await page.evaluate(() => window.__bench.prepare(['red.png', 'blue.png']));
    expect(sizes).toEqual([
      { width: 160, height: 90 },
      { width: 160, height: 90 },
    ]);
    const [a, b] = layoutSideBySide(canvas, [
      { media: 'red.png', size: sizes[0] },
      { media: 'blue.png', size: sizes[1] },
    ]);
    await startPlay([{ label: 'AB', items: [a, b], end: { kind: 'click', maxMs: 60000 } }]);
    await waitForColor(centre(a.rect)[0], centre(a.rect)[1], RED);
    expect(await probe(centre(b.rect)[0], centre(b.rect)[1])).toEqual(BLUE);
    expect(await probe(a.rect.x - 2, a.rect.y + 5)).toEqual(GREY);
    expect(await probe((a.rect.x + a.rect.width + b.rect.x) / 2, centre(a.rect)[1])).toEqual(GREY);
    await page.mouse.click(centre(a.rect)[0], centre(a.rect)[1]);
    const records = await finished();
    expect(Array.isArray(records)).toBe(true);
    const [record] = records as PresentationRecord[];
    expect(record).toMatchObject({ label: 'AB', media: ['red.png', 'blue.png'], endedBy: 'click' });
    // The frame counts use the period as it stood then (within 0.01 ms of the one measured at start).
    expect(Math.abs(record.refreshMs - refreshMs)).toBeLessThan(0.01);
    expect(record.requestedFrames).toBe(Math.round(60000 / record.refreshMs));
    expect(record.clickMs).toBeGreaterThanOrEqual(record.onsetMs);
    expect(record.offsetMs).toBeGreaterThan(record.onsetMs);
    expect(record.renderDoneMs).toBeGreaterThanOrEqual(record.onsetMs);
    expect(await probe(centre(a.rect)[0], centre(a.rect)[1])).toEqual(GREY);
    expect(await page.evaluate(() => window.__glimpseStage!.lastRecords)).toEqual(records);
  });

  it('plays A, a blank gap and B one after another with frame-counted durations', async () => {
    const sizes = await page.evaluate(() => window.__bench.prepare(['red.png', 'blue.png']));
    const [a, b] = layoutOneAfterAnother(canvas, [
      { media: 'red.png', size: sizes[0] },
      { media: 'blue.png', size: sizes[1] },
    ]);
    expect(a.rect).toEqual(b.rect);
    await startPlay([
      { label: 'A', items: [a], end: { kind: 'click', maxMs: 60000 } },
      { label: 'gap', items: [], end: { kind: 'duration', ms: 250 } },
      { label: 'B', items: [b], end: { kind: 'duration', ms: 300 } },
    ]);
    const [x, y] = centre(a.rect);
    await waitForColor(x, y, RED);
    await page.mouse.click(x, y);
    const records = (await finished()) as PresentationRecord[];
    expect(records.map((r) => [r.label, r.endedBy])).toEqual([
      ['A', 'click'],
      ['gap', 'duration'],
      ['B', 'duration'],
    ]);
    expect(records[1].requestedFrames).toBe(Math.round(250 / refreshMs));
    expect(records[2].requestedFrames).toBe(Math.round(300 / refreshMs));
    for (const r of records.slice(1)) {
      // A step ends on the first frame at least (n - 0.5) periods after its onset, so it is never cut short.
      expect(r.shownFrames).toBeGreaterThanOrEqual(r.requestedFrames!);
      expect(r.renderedFrames).toBeGreaterThan(0);
    }
    expect(records[0].offsetMs).toBe(records[1].onsetMs);
    expect(records[1].offsetMs).toBe(records[2].onsetMs);
    expect(records[1].media).toEqual([]);
  });

  it('plays a video pair side by side to its end and logs presented frames', async () => {
    await page.evaluate(async () => {
      await window.__bench.recordVideo('left.webm', 160, 90, ['#ff0000', '#00ff00'], 400);
      await window.__bench.recordVideo('right.webm', 160, 90, ['#0000ff', '#ffff00'], 400);
    });
    const sizes = await page.evaluate(() => window.__bench.prepare(['left.webm', 'right.webm']));
    expect(sizes).toEqual([
      { width: 160, height: 90 },
      { width: 160, height: 90 },
    ]);
    const [a, b] = layoutSideBySide(canvas, [
      { media: 'left.webm', size: sizes[0] },
      { media: 'right.webm', size: sizes[1] },
    ]);
    await startPlay([{ label: 'AB', items: [a, b], end: { kind: 'video-end' } }]);
    const records = (await finished()) as PresentationRecord[];
    expect(records).toHaveLength(1);
    expect(records[0].endedBy).toBe('video-end');
    expect(records[0].videos?.map((v) => v.media)).toEqual(['left.webm', 'right.webm']);
    for (const video of records[0].videos!) {
      expect(video.presentedFrames).toBeGreaterThan(3);
      expect(video.lastMediaTime!).toBeGreaterThan(video.firstMediaTime!);
      expect(video.firstExpectedDisplayTime!).toBeGreaterThanOrEqual(records[0].onsetMs);
    }
    // After the last step the stage is blank again.
    expect(await probe(centre(a.rect)[0], centre(a.rect)[1])).toEqual(GREY);
  });

  it('rejects a video the browser cannot decode with a StageMediaError the flow can show', async () => {
    await page.evaluate(() => window.__bench.addBase64('broken.mp4', 'video', 'video/mp4', btoa('this is not a video')));
    const failure = await page.evaluate(() =>
      window.__bench.prepare(['broken.mp4']).then(
        () => null,
        (e) => ({ name: e.name, mediaKind: e.mediaKind, reason: e.reason, media: e.media }),
      ),
    );
    expect(failure).toEqual({ name: 'StageMediaError', mediaKind: 'video', reason: 'decode', media: 'broken.mp4' });
    await startPlay([{ label: 'A', items: [{ media: 'broken.mp4', rect: { x: 0, y: 0, width: 10, height: 10 } }], end: { kind: 'video-end' } }]);
    expect(await finished()).toMatchObject({ name: 'StageMediaError' });
    const missing = await page.evaluate(() => window.__bench.prepare(['nowhere.png']).then(() => null, (e) => [e.name, e.reason]));
    expect(missing).toEqual(['StageMediaError', 'missing']);
  });

  it('clear() ends a running play at the next frame with endedBy abort', async () => {
    await startPlay([
      { label: 'A', items: [{ media: 'red.png', rect: { x: 0, y: 0, width: 160, height: 90 } }], end: { kind: 'duration', ms: 60000 } },
      { label: 'B', items: [], end: { kind: 'duration', ms: 1000 } },
    ]);
    await waitForColor(80, 45, RED);
    await page.evaluate(() => window.__bench.controller!.clear());
    const records = (await finished()) as PresentationRecord[];
    expect(records.map((r) => [r.label, r.endedBy])).toEqual([['A', 'abort']]);
    expect(await probe(80, 45)).toEqual(GREY);
  });

  it('follows the size of its container', async () => {
    await page.evaluate(() => {
      document.getElementById('stage')!.style.width = '400px';
    });
    await expect.poll(() => page.evaluate(() => window.__glimpseStage!.size())).toEqual({ width: 400, height: 360 });
    await startPlay([{ label: 'A', items: [{ media: 'blue.png', rect: { x: 300, y: 200, width: 100, height: 100 } }], end: { kind: 'click', maxMs: 60000 } }]);
    await waitForColor(390, 290, BLUE);
    await page.evaluate(() => window.__bench.controller!.clear());
    await finished();
    await page.evaluate(() => {
      document.getElementById('stage')!.style.width = '640px';
    });
    await expect.poll(() => page.evaluate(() => window.__glimpseStage!.size())).toEqual({ width: 640, height: 360 });
  });
});
