/**
 * Pixel fidelity, judged from a captured frame: was a media drawn with exactly the file's pixels, each replicated
 * k×k device pixels, at its device rectangle? Used by the stage's pixel test on the virtual display and by
 * `npm run bench:fidelity`. Media are made here: seeded noise (every pixel differs from its neighbours, so any
 * resampling or shift shows), with or without alpha.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { shownBarCentre, type ColourClip } from '../scripts/make-colour-clips';
import { layoutSingle } from '../src/web/stage/layouts';
import type { PresentationRecord, PresentationStep, StageItem } from '../src/web/stage/types';
import { decodePng, type RgbaImage } from './frameCode';
import { VirtualDisplay } from './virtualDisplay';

export interface RawImage {
  width: number;
  height: number;
  /** RGBA, 4 bytes a pixel. */
  data: Uint8Array;
}

export interface DeviceRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Seeded noise (xorshift32): the same seed gives the same image. `alpha` gives every pixel a random alpha too. */
export function noiseImage(width: number, height: number, seed: number, alpha = false): RawImage {
  const data = new Uint8Array(width * height * 4);
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state & 0xff;
  };
  for (let i = 0; i < data.length; i += 4) {
    data[i] = next();
    data[i + 1] = next();
    data[i + 2] = next();
    data[i + 3] = alpha ? next() : 255;
  }
  return { width, height, data };
}

/** A PNG of the image (8-bit, RGB when opaque, else RGBA; untagged: sharp writes no gAMA and no ICC). */
export async function pngOf(image: RawImage): Promise<Buffer> {
  const opaque = image.data.every((v, i) => i % 4 !== 3 || v === 255);
  const raw = sharp(Buffer.from(image.data), { raw: { width: image.width, height: image.height, channels: 4 } });
  return (opaque ? raw.removeAlpha() : raw).png({ compressionLevel: 1, palette: false }).toBuffer();
}

/** The file's pixel over a background, as a display shows it: straight alpha composited, rounded once. */
export function composite(image: RawImage, x: number, y: number, background: readonly [number, number, number]): [number, number, number] {
  const i = (y * image.width + x) * 4;
  const a = image.data[i + 3];
  return [0, 1, 2].map((c) => Math.round((image.data[i + c] * a + background[c] * (255 - a)) / 255)) as [number, number, number];
}

export interface Fidelity {
  /** Device pixels compared (the whole rectangle, or those `where` picked). */
  pixels: number;
  /** Of those, equal to the file's pixel they show (all three channels). */
  equal: number;
  /** The largest difference in any channel. */
  worst: number;
  /** The first pixel that differed: device (x, y), what was drawn, what was expected. */
  firstDiff: { x: number; y: number; drawn: number[]; expected: number[] } | null;
}

/**
 * Compares a captured frame with the file drawn at `device` (device pixels of the capture), each media pixel
 * replicated `k`×`k` (nearest neighbour). `expected(x, y)` gives the file's colour at media pixel (x, y); `where(x, y)`
 * (capture device px), when given, picks the pixels compared (the bubble's clear window).
 */
export function compareDrawn(
  capture: RgbaImage,
  device: DeviceRect,
  k: number,
  expected: (x: number, y: number) => readonly number[],
  where?: (x: number, y: number) => boolean,
): Fidelity {
  let pixels = 0;
  let equal = 0;
  let worst = 0;
  let firstDiff: Fidelity['firstDiff'] = null;
  for (let dy = 0; dy < device.height; dy++) {
    for (let dx = 0; dx < device.width; dx++) {
      if (where && !where(device.x + dx, device.y + dy)) continue;
      pixels++;
      const drawn = capture.pixel(device.x + dx, device.y + dy);
      const want = expected(Math.floor(dx / k), Math.floor(dy / k));
      const diff = Math.max(...[0, 1, 2].map((c) => Math.abs(drawn[c] - want[c])));
      if (diff === 0) equal++;
      else firstDiff ??= { x: device.x + dx, y: device.y + dy, drawn: drawn.slice(0, 3), expected: [...want] };
      worst = Math.max(worst, diff);
    }
  }
  return { pixels, equal, worst, firstDiff };
}

// ---------------------------------------------------------------------------------------------------------------
// Driving the real <Stage> of the bench page on the virtual display (the pixel tests and bench:fidelity).

/** The media of the pixel checks: a noise PNG, a noise PNG with random alpha, a photo-like JPEG. */
export const NOISE = noiseImage(160, 120, 7);
export const ALPHA = noiseImage(64, 48, 11, true);
export const JPEG_SIZE = { width: 96, height: 64 };
/** The bench page's background (#808080). */
export const BACKGROUND = [128, 128, 128] as const;

/** A photo-like JPEG (smooth noise, 4:2:0, quality 80): what most image studies show. */
export async function photoJpeg(): Promise<Buffer> {
  return sharp(await pngOf(noiseImage(24, 16, 3))).resize(JPEG_SIZE.width, JPEG_SIZE.height, { kernel: 'cubic' }).jpeg({ quality: 80 }).toBuffer();
}

/** A virtual display at `ratio` on the bench page (`url`), its stage ready, the three pixel media prepared. */
export async function openPixelDisplay(url: string, ratio: number, jpeg: Buffer): Promise<VirtualDisplay> {
  const display = await VirtualDisplay.launch({ refreshHz: 60, width: 640, height: 360, deviceScaleFactor: ratio, pace: 'free' });
  try {
    await display.goto(url);
    await display.evaluate(() => window.__bench.ready(), null);
    const media: Array<[string, string, string]> = [
      ['noise.png', 'image/png', (await pngOf(NOISE)).toString('base64')],
      ['alpha.png', 'image/png', (await pngOf(ALPHA)).toString('base64')],
      ['photo.jpg', 'image/jpeg', jpeg.toString('base64')],
    ];
    for (const entry of media) await display.evaluate(([name, mime, data]) => window.__bench.addBase64(name, 'image', mime, data), entry);
    await display.evaluate(() => window.__bench.prepare(['noise.png', 'alpha.png', 'photo.jpg']), null);
    return display;
  } catch (error) {
    await display.close();
    throw error;
  }
}

/** The stage's canvas as a layout sees it. */
export function canvasOf(device: { width: number; height: number; ratio: number }): { width: number; height: number; pixelRatio: number } {
  return { width: device.width / device.ratio, height: device.height / device.ratio, pixelRatio: device.ratio };
}

/** Shows one item for 50 ms, capturing every frame: the step's record and the capture of its last full frame. */
export async function showCaptured(display: VirtualDisplay, item: StageItem): Promise<{ record: PresentationRecord; capture: RgbaImage }> {
  const step: PresentationStep = { label: 'S', items: [item], end: { kind: 'duration', ms: 50 } };
  const { value, frames } = await display.evaluate(
    async (s) => {
      await window.__bench.startPlay([s]);
      return window.__bench.playing!;
    },
    step,
    { capture: true },
  );
  if (!Array.isArray(value)) throw new Error(`play failed: ${JSON.stringify(value)}`);
  const capture = await decodePng(frames[Math.max(0, frames.length - 2)]!.png!);
  return { record: value[0] as PresentationRecord, capture };
}

/** Chromium's own <img> of the JPEG, one device pixel per pixel at the page's top-left corner, captured. */
export async function imgCapture(display: VirtualDisplay, jpeg: Buffer, ratio: number): Promise<RgbaImage> {
  const { frames } = await display.evaluate(
    async ([data, r, width, height]) => {
      const img = new Image();
      img.src = `data:image/jpeg;base64,${data}`;
      await img.decode();
      Object.assign(img.style, { position: 'fixed', left: '0', top: '0', width: `${width / r}px`, height: `${height / r}px`, zIndex: '10' });
      img.id = 'reference';
      document.body.append(img);
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    },
    [jpeg.toString('base64'), ratio, JPEG_SIZE.width, JPEG_SIZE.height] as const,
    { capture: true },
  );
  await display.evaluate(() => document.getElementById('reference')!.remove(), null);
  return decodePng(frames[frames.length - 1]!.png!);
}

/** A colour-bar clip of tests/fixtures/colour with ffmpeg's reference decode of its bars (reference.json). */
export interface ColourReference extends ColourClip {
  bars: Array<[number, number, number]>;
}

export const COLOUR_FIXTURES = fileURLToPath(new URL('../tests/fixtures/colour/', import.meta.url));

export function colourReferences(): Record<string, ColourReference> {
  return (JSON.parse(readFileSync(join(COLOUR_FIXTURES, 'reference.json'), 'utf8')) as { clips: Record<string, ColourReference> }).clips;
}

/**
 * The bars as the stage drew the clip's first frame (a paused video step at native scale), read at each bar's
 * centre, and how the stage uploaded it ('planes', 'pixels', 'frames' or 'element').
 */
export async function drawnBars(display: VirtualDisplay, file: string, clip: ColourReference): Promise<{ bars: Array<[number, number, number]>; upload: string | null; size: { width: number; height: number } }> {
  const base64 = readFileSync(join(COLOUR_FIXTURES, file)).toString('base64');
  await display.evaluate(([name, data]) => window.__bench.addBase64(name, 'video', 'video/mp4', data), [file, base64] as const);
  const { value: prepared } = await display.evaluate(async (name) => {
    await window.__bench.prepare([name]);
    return { device: window.__bench.controller!.devicePixels(), upload: window.__glimpseStage!.videoUpload(name), size: window.__bench.controller!.mediaSize(name) };
  }, file);
  const { device } = prepared;
  const item = layoutSingle({ width: device.width, height: device.height, pixelRatio: 1, scaling: 'native' }, { media: file, size: prepared.size });
  const { capture } = await showCaptured(display, { ...item, paused: true });
  const bars = clip.bars.map((_, i) => {
    const { x, y } = shownBarCentre(i, clip);
    const [r, g, b] = capture.pixel(item.pixels!.device.x + x, item.pixels!.device.y + y);
    return [r, g, b] as [number, number, number];
  });
  return { bars, upload: prepared.upload, size: prepared.size };
}

/** The largest difference in any channel of any bar. */
export function worstBar(drawn: ReadonlyArray<readonly number[]>, reference: ReadonlyArray<readonly number[]>): number {
  return Math.max(...drawn.flatMap((rgb, i) => rgb.map((v, c) => Math.abs(v - reference[i]![c]!))));
}

/** A virtual display on the bench page `url` (its `?video=` picks the path), the stage filling 1320×760 (room for the 1280×720 clip). */
export async function openColourDisplay(url: string): Promise<VirtualDisplay> {
  const display = await VirtualDisplay.launch({ refreshHz: 60, width: 1320, height: 760, pace: 'free' });
  try {
    await display.goto(url);
    await display.evaluate(() => window.__bench.ready(), null);
    await display.evaluate(async () => {
      Object.assign(document.getElementById('stage')!.style, { width: '1320px', height: '760px' });
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    }, null);
    return display;
  } catch (error) {
    await display.close();
    throw error;
  }
}
