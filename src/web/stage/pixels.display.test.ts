/**
 * Pixel-exact stimuli (docs/pixels.md) on the virtual display at device pixel ratios 1, 1.25, 1.5,
 * 1.75 and 2: the real <Stage> draws a noise PNG (every pixel differs from its neighbours) with the layouts the
 * protocols use, 'native' and 'integer'; each captured device pixel is compared with the file's pixel it shows.
 * Also an alpha PNG (composited over the stage background) and a JPEG against libjpeg-turbo's decode of it
 * (exact) and Chromium's own <img> (within one level: the <img> goes through another decode path).
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveBenchPage } from '../../../bench/timing/benchPage';
import { decodePng } from '../../../testkit/frameCode';
import { ALPHA, BACKGROUND, canvasOf, compareDrawn, composite, imgCapture, JPEG_SIZE, NOISE, openPixelDisplay, photoJpeg, showCaptured } from '../../../testkit/pixelFidelity';
import type { VirtualDisplay } from '../../../testkit/virtualDisplay';
import { bubbleLayout, mediaCentre } from '../../protocols/bubble/geometry';
import { layoutSingle, pixelsPerMediaPixel } from './layouts';

let jpeg: Buffer;
let served: { url: string; close(): Promise<void> };

beforeAll(async () => {
  served = await serveBenchPage({ outDir: 'stage-pixels-test' });
  jpeg = await photoJpeg();
}, 180_000);

afterAll(async () => {
  await served?.close();
});

const openDisplay = (ratio: number): Promise<VirtualDisplay> => openPixelDisplay(served.url, ratio, jpeg);

describe('Pixel-exact stimuli on the virtual display', () => {
  it('a stage whose host starts at a fractional device pixel (37 CSS px at 125 %) still draws every pixel', async () => {
    const display = await openDisplay(1.25);
    try {
      const { value: origin } = await display.evaluate(async () => {
        const host = document.getElementById('stage')!;
        Object.assign(host.style, { left: '3px', top: '37px', width: '601px', height: '313px' });
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(resolve))));
        const box = host.getBoundingClientRect();
        return { left: box.left, top: box.top, device: window.__bench.controller!.devicePixels() };
      }, null);
      const { device } = origin;
      const item = layoutSingle({ ...canvasOf(device), scaling: 'integer' }, { media: 'noise.png', size: { width: NOISE.width, height: NOISE.height } });
      const { capture } = await showCaptured(display, item);
      // The browser snaps the canvas's edges to the device pixel grid (3.75 → 4, 46.25 → 46, 755 → 755, 437.5 → 438):
      // its device box is 751 × 392, and the backing store follows it.
      const shifted = { ...item.pixels!.device, x: item.pixels!.device.x + Math.round(origin.left * 1.25), y: item.pixels!.device.y + Math.round(origin.top * 1.25) };
      const fidelity = compareDrawn(capture, shifted, 1, (x, y) => composite(NOISE, x, y, BACKGROUND));
      expect({ device, ...fidelity }).toMatchObject({ device: { width: 751, height: 392, ratio: 1.25 }, equal: NOISE.width * NOISE.height, worst: 0 });
    } finally {
      await display.close();
    }
  }, 120_000);

  for (const ratio of [1, 1.25, 1.5, 1.75, 2]) {
    it(`device pixel ratio ${ratio}: native and integer draw every pixel of the file`, async () => {
      const display = await openDisplay(ratio);
      try {
        const { value: device } = await display.evaluate(() => window.__bench.controller!.devicePixels(), null);
        expect(device).toEqual({ width: Math.round(640 * ratio), height: Math.round(360 * ratio), ratio });
        for (const scaling of ['native', 'integer'] as const) {
          const canvas = { ...canvasOf(device), scaling };
          const item = layoutSingle(canvas, { media: 'noise.png', size: { width: NOISE.width, height: NOISE.height } });
          const k = pixelsPerMediaPixel(scaling, ratio);
          const { record, capture } = await showCaptured(display, item);
          expect(capture.width).toBe(device.width);
          expect(record.pixelRatio).toBe(ratio);
          expect(record.items).toEqual([{ media: 'noise.png', scaling, scale: k, filter: 'nearest', device: item.pixels!.device }]);
          const fidelity = compareDrawn(capture, item.pixels!.device, k, (x, y) => composite(NOISE, x, y, BACKGROUND));
          expect({ scaling, ...fidelity }).toMatchObject({ scaling, equal: NOISE.width * NOISE.height * k * k, worst: 0 });
        }
        // Straight alpha, composited over the stage's background once.
        const alpha = layoutSingle({ ...canvasOf(device), scaling: 'integer' }, { media: 'alpha.png', size: { width: ALPHA.width, height: ALPHA.height } });
        const { capture } = await showCaptured(display, alpha);
        const k = pixelsPerMediaPixel('integer', ratio);
        const fidelity = compareDrawn(capture, alpha.pixels!.device, k, (x, y) => composite(ALPHA, x, y, BACKGROUND));
        expect({ alpha: true, ...fidelity }).toMatchObject({ alpha: true, equal: ALPHA.width * ALPHA.height * k * k, worst: 0 });

        // The bubble in device pixels: the clear window shows the file's pixels replicated k×k, and the blur and the
        // window radius are media pixels (σ 4, radius 30), whatever the ratio.
        const bubble = bubbleLayout({ x: 0, y: 0, ...canvasOf(device) }, NOISE, NOISE, 0, { scaling: 'integer', ratio });
        const pointer = { x: Math.round(mediaCentre(bubble).x), y: Math.round(mediaCentre(bubble).y) };
        await display.mouse('mouseMoved', pointer.x, pointer.y);
        const radius = 30 * bubble.scale;
        const shown = await showCaptured(display, { media: 'noise.png', rect: bubble.media, pixels: bubble.pixels!, bubble: { sigma: 4 * bubble.scale, radius } });
        expect(shown.record.items).toEqual([{ media: 'noise.png', scaling: 'integer', scale: k, filter: 'nearest', device: bubble.pixels!.device }]);
        const fromPointer = (x: number, y: number) => Math.hypot((x + 0.5) / ratio - pointer.x, (y + 0.5) / ratio - pointer.y);
        const noise = (x: number, y: number) => composite(NOISE, x, y, BACKGROUND);
        const clear = compareDrawn(shown.capture, bubble.pixels!.device, k, noise, (x, y) => fromPointer(x, y) < radius - 0.5);
        expect({ bubble: 'window', ...clear, firstDiff: clear.firstDiff }).toMatchObject({ bubble: 'window', equal: clear.pixels, worst: 0 });
        // The window is 30 media pixels in radius at every ratio: exact inside (less the ½ CSS px rim), blurred beyond.
        expect(clear.pixels / (Math.PI * ((radius - 0.5) * ratio) ** 2)).toBeCloseTo(1, 2);
        const blurred = compareDrawn(shown.capture, bubble.pixels!.device, k, noise, (x, y) => fromPointer(x, y) > radius + 0.5);
        expect(blurred.equal / blurred.pixels).toBeLessThan(0.05);

        // A JPEG at native scale against its reference decode and Chromium's own <img>, one device pixel per pixel.
        const photo = layoutSingle({ ...canvasOf(device), scaling: 'native' }, { media: 'photo.jpg', size: { width: JPEG_SIZE.width, height: JPEG_SIZE.height } });
        const onStage = (await showCaptured(display, photo)).capture;
        const byImg = await imgCapture(display, jpeg, ratio);
        // Chromium's <img> shows the file through another decode path (±1 level on some pixels, measured); the
        // stage equals libjpeg-turbo's decode of the file (sharp) exactly, and the <img> within one level.
        const reference = await decodePng(await sharp(jpeg).png().toBuffer());
        const exact = compareDrawn(onStage, photo.pixels!.device, 1, (x, y) => reference.pixel(x, y));
        expect({ jpeg: 'libjpeg-turbo', ...exact }).toMatchObject({ jpeg: 'libjpeg-turbo', equal: JPEG_SIZE.width * JPEG_SIZE.height, worst: 0 });
        const jpegFidelity = compareDrawn(onStage, photo.pixels!.device, 1, (x, y) => byImg.pixel(x, y));
        expect(jpegFidelity.worst).toBeLessThanOrEqual(1);
      } finally {
        await display.close();
      }
    }, 120_000);
  }
});
