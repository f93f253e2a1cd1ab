/**
 * Pixel fidelity, judged from a captured frame: was a media drawn with exactly the file's pixels, each replicated
 * k×k device pixels, at its device rectangle? Used by the stage's pixel test on the virtual display and by
 * `npm run bench:fidelity`. Media are made here: seeded noise (every pixel differs from its neighbours, so any
 * resampling or shift shows), with or without alpha.
 */
import sharp from 'sharp';
import type { RgbaImage } from './frameCode';

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
  /** Device pixels compared (the whole rectangle). */
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
 * replicated `k`×`k` (nearest neighbour). `expected(x, y)` gives the file's colour at media pixel (x, y).
 */
export function compareDrawn(capture: RgbaImage, device: DeviceRect, k: number, expected: (x: number, y: number) => readonly number[]): Fidelity {
  let equal = 0;
  let worst = 0;
  let firstDiff: Fidelity['firstDiff'] = null;
  for (let dy = 0; dy < device.height; dy++) {
    for (let dx = 0; dx < device.width; dx++) {
      const drawn = capture.pixel(device.x + dx, device.y + dy);
      const want = expected(Math.floor(dx / k), Math.floor(dy / k));
      const diff = Math.max(...[0, 1, 2].map((c) => Math.abs(drawn[c] - want[c])));
      if (diff === 0) equal++;
      else firstDiff ??= { x: device.x + dx, y: device.y + dy, drawn: drawn.slice(0, 3), expected: [...want] };
      worst = Math.max(worst, diff);
    }
  }
  return { pixels: device.width * device.height, equal, worst, firstDiff };
}
