/**
 * The real <Stage> in headless Chromium (SwiftShader WebGL2), through the bench page (bench/timing/page.html,
 * which mounts the Stage lazily like the flow does). Pixels are read back with the documented debug hook
 * window.__glimpseStage.probe. No timing thresholds here: timing figures belong to `npm run bench:timing`.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '@playwright/test';
import { openBenchPage } from '../../../bench/timing/benchPage';
import type { BenchPage } from '../../../bench/timing/benchPage';
import { layoutOneAfterAnother, layoutSideBySide } from './layouts';
import type { PresentationRecord, PresentationStep, VideoFrameRecord } from './types';

const CLIPS = join(dirname(fileURLToPath(import.meta.url)), '../../../tests/fixtures/clips');

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

/** A frame-coded clip of tests/fixtures/clips, added to the page and prepared: one step playing it to its end. */
async function addClip(name: string): Promise<PresentationStep> {
  const base64 = (await readFile(join(CLIPS, name))).toString('base64');
  await page.evaluate(([n, b]) => window.__bench.addBase64(n, 'video', n.endsWith('.webm') ? 'video/webm' : 'video/mp4', b), [name, base64]);
  const [size] = await page.evaluate((n) => window.__bench.prepare([n]), name);
  return { label: 'V', items: [{ media: name, rect: { x: 0, y: 0, ...size } }], end: { kind: 'video-end' } };
}

/** A clip played to its end: first frame at the onset, last frame until the offset, every due frame drawn or skipped. */
function expectWholeClipRecord(record: PresentationRecord, video: VideoFrameRecord, timing: VideoFrameRecord['timing']): void {
  expect(video.timing).toBe(timing);
  expect(video.frames).toBeGreaterThan(3);
  expect(video).toMatchObject({ firstFrame: 0, firstOnsetMs: record.onsetMs, lastOffsetMs: record.offsetMs });
  expect(video.drawnFrames + video.skippedFrames!).toBe(video.frames);
  expect(video.skips?.length ?? 0).toBe(video.skippedFrames);
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

  it('plays a video pair side by side to its end and counts the frames it drew', async () => {
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
    for (const video of records[0].videos!) expectWholeClipRecord(records[0], video, 'stage-clock');
    // After the last step the stage is blank again.
    expect(await probe(centre(a.rect)[0], centre(a.rect)[1])).toEqual(GREY);
  });

  it('plays a 30 fps clip for exactly its frames on the stage clock: 2 refreshes each at 60 Hz, then blank', async () => {
    const step = await addClip('frames-30fps.mp4');
    const records = (await page.evaluate((s) => window.__bench.controller!.play(s), [step])) as PresentationRecord[];
    const [record] = records;
    const [video] = record.videos!;
    expectWholeClipRecord(record, video, 'stage-clock');
    expect(video.frames).toBe(30);
    // The step lasts the clip's refreshes: 30 frames × 2, whatever the machine dropped (the record says what).
    expect(record.shownFrames).toBe(Math.round(1000 / refreshMs));
    // Real time here (not the virtual display): the machine may drop frames. Every clip frame is then drawn or
    // counted as skipped, never lost from the record; without a drop, every one is drawn at its cadence.
    expect(video.drawnFrames! + video.skippedFrames!).toBe(30);
    // A skipped clip frame is a dropped refresh the record names.
    if (video.skippedFrames! > 0) expect(record.droppedFrames).toBeGreaterThan(0);
    if (record.droppedFrames === 0) expect(video).toMatchObject({ drawnFrames: 30, skippedFrames: 0, repeatedFrames: 0 });
  });

  it('falls back to the element path where the stage is told to (no WebCodecs), and says "element-timed"', async () => {
    await page.goto(`${bench.url}?video=element`);
    ({ refreshMs } = await page.evaluate(() => window.__bench.ready()));
    const step = await addClip('frames-30fps.mp4');
    const [record] = (await page.evaluate((s) => window.__bench.controller!.play(s), [step])) as PresentationRecord[];
    const [video] = record.videos!;
    expect(video).toMatchObject({ media: 'frames-30fps.mp4', timing: 'element-timed', frames: 30, firstFrame: 0 });
    // Counted from the mediaTime of each frame the stage drew (not the element's own presentedFrames).
    expect(video.drawnFrames).toBeGreaterThan(1);
    expect(video.drawnFrames + video.skippedFrames!).toBeLessThanOrEqual(30);
    await page.goto(bench.url);
    ({ refreshMs } = await page.evaluate(() => window.__bench.ready()));
    await page.evaluate(async () => {
      await window.__bench.makeSolid('red.png', 160, 90, '#ff0000');
      await window.__bench.makeSolid('blue.png', 160, 90, '#0000ff');
    });
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
