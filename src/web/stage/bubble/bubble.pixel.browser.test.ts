/**
 * Pixel test of the bubble drawing: the real <Stage> in headless Chromium (SwiftShader WebGL2), through the
 * bubble bench page, with the real pointer moved to a known point; then a screenshot of the canvas.
 * Target image (bench/bubble/testImages.ts): a 1-px checkerboard on top (sharp = black/white texels, blurred =
 * uniform grey, so every pixel says whether it is inside the window) and a black|white step edge below (its
 * blurred profile gives the deviation).
 *   - the window is centred on the pointer (±1 px) and its radius is right (±1 px): centroid and area of the sharp
 *     pixels of the checkerboard;
 *   - the deviation measured from the edge profile far outside the window (distance between the 15.87 % and
 *     84.13 % crossings = 2σ) matches the requested deviation within 10 %.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '@playwright/test';
import { openBenchPage } from '../../../../bench/timing/benchPage';
import type { BenchPage } from '../../../../bench/timing/benchPage';
import { edgeDeviation, windowFromSharpPixels } from '../../../../bench/bubble/pixelAnalysis';

const benchRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../bench/bubble');
const IMAGE = { width: 320, height: 240 };
// A canvas of 1.25 times the media, the media centred in it (as the bubble layout places it).
const CANVAS = { width: 400, height: 300 };
const MEDIA = { x: 40, y: 30, width: IMAGE.width, height: IMAGE.height };

let bench: BenchPage;
let page: Page;

async function canvasPixels(): Promise<{ data: Buffer; width: number; height: number }> {
  const png = await page.screenshot({ clip: { x: 0, y: 0, ...CANVAS } });
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Show the target, then move the real mouse through `via` (each drawn) to `pointer`. */
async function showAt(sigma: number, radius: number, pointer: { x: number; y: number }, via: Array<{ x: number; y: number }> = []): Promise<void> {
  await page.evaluate((item) => window.__bubbleBench.show(item), { media: 'target.png', rect: MEDIA, bubble: { sigma, radius } });
  for (const p of [...via, pointer]) {
    await page.mouse.move(p.x, p.y);
    await expect
      .poll(() => page.evaluate(() => window.__glimpseStage?.drawn ?? null), { timeout: 15000, interval: 20 })
      .toMatchObject({ x: p.x, y: p.y });
  }
  // The drawn frame is on screen once a later frame has rendered (the probe waits for one).
  await page.evaluate(() => window.__glimpseStage!.probe(0, 0));
}

beforeAll(async () => {
  bench = await openBenchPage({ root: benchRoot, outDir: 'bubble-pixel-test', viewport: { width: 480, height: 360 } });
  page = bench.page;
  await page.evaluate(([w, h]) => window.__bubbleBench.mount(w, h), [CANVAS.width, CANVAS.height]);
  await page.evaluate(([w, h]) => window.__bubbleBench.makePixelTarget('target.png', w, h), [IMAGE.width, IMAGE.height]);
}, 120000);

afterAll(async () => {
  await bench?.close();
});

describe('bubble stage pixels', () => {
  for (const { sigma, radius, pointer, via } of [
    // Frames after a move redraw only the old and new windows' boxes: the earlier windows must be blurred again.
    { sigma: 6, radius: 40, pointer: { x: 140, y: 90 }, via: [{ x: 300, y: 80 }, { x: 200, y: 60 }, { x: 150, y: 95 }] },
    { sigma: 3, radius: 25.5, pointer: { x: 201, y: 71 } },
    { sigma: 12, radius: 30, pointer: { x: 260, y: 72 } },
    { sigma: 20, radius: 20, pointer: { x: 100, y: 55 } },
  ]) {
    it(`σ ${sigma} px, radius ${radius} px, pointer at (${pointer.x}, ${pointer.y})${via ? ' after other positions' : ''}`, async () => {
      await showAt(sigma, radius, pointer, via);
      const pixels = await canvasPixels();
      // The checkerboard covers image rows 0..119: keep 3σ away from its lower border.
      const checker = { x: MEDIA.x, y: MEDIA.y, width: MEDIA.width, height: IMAGE.height / 2 - Math.ceil(3 * sigma) };
      const window = windowFromSharpPixels(pixels, checker);
      expect(Math.abs(window.centreX - pointer.x)).toBeLessThanOrEqual(1);
      expect(Math.abs(window.centreY - pointer.y)).toBeLessThanOrEqual(1);
      expect(Math.abs(window.radius - radius)).toBeLessThanOrEqual(1);
      // Edge at image x = 160, profile on image row 200 (far below the window and the checkerboard).
      const measured = edgeDeviation(pixels, MEDIA.y + 200, MEDIA.x + IMAGE.width / 2, Math.ceil(5 * sigma));
      console.log(`σ ${sigma}: window centre (${window.centreX.toFixed(2)}, ${window.centreY.toFixed(2)}), radius ${window.radius.toFixed(2)}; measured σ ${measured.toFixed(2)}`);
      expect(Math.abs(measured - sigma) / sigma).toBeLessThan(0.1);
    });
  }

  it('outside the window the checkerboard is a flat grey (blurred)', async () => {
    const pixels = await canvasPixels();
    const i = ((MEDIA.y + 10) * pixels.width + (MEDIA.x + 10)) * 3;
    expect(Math.abs(pixels.data[i] - 127.5)).toBeLessThan(8);
  });
});

describe('bubble stage video', () => {
  it('blurs each new video frame (the blurred area follows the video) and ends with playback', async () => {
    await page.evaluate(() => window.__bubbleBench.recordVideo('clip.webm', 160, 120, ['#ff0000', '#0000ff'], 700));
    await page.mouse.move(340, 250);
    await page.evaluate(
      (item) => window.__bubbleBench.startPlay([{ label: 'A', items: [item], end: { kind: 'video-end' } }]),
      { media: 'clip.webm', rect: MEDIA, bubble: { sigma: 8, radius: 30 } },
    );
    // Far from the window: the blurred copy, which must show the red segment, then the blue one.
    const outside = () => page.evaluate(() => window.__glimpseStage!.probe(60, 50));
    const isRed = (p: number[]) => p[0]! > 180 && p[2]! < 80;
    const isBlue = (p: number[]) => p[2]! > 180 && p[0]! < 80;
    await expect.poll(async () => isRed(await outside()), { timeout: 15000, interval: 20 }).toBe(true);
    await expect.poll(async () => isBlue(await outside()), { timeout: 15000, interval: 20 }).toBe(true);
    const records = await page.evaluate(() => window.__bubbleBench.playing!);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ label: 'A', media: ['clip.webm'], endedBy: 'video-end' });
    // The clip is drawn by the stage's clock (WebCodecs on this localhost page), every frame counted by the stage.
    expect(records[0]!.videos![0]).toMatchObject({ timing: 'stage-clock', firstFrame: 0 });
    expect(records[0]!.videos![0]!.drawnFrames).toBeGreaterThan(10);
  });
});
