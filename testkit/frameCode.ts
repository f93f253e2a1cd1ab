/**
 * A pixel code for frame-by-frame tests: an id in 0..511 is a colour whose channels each take one of 8 levels
 * (16, 48, …, 240). What a captured frame shows is read from its pixels alone (the page's own records are what is
 * being checked, so they cannot be the witness). A channel more than 12 levels from every code level (the grey
 * background 128, a blurred edge) decodes to null. PNG captures only: lossy screenshots shift colours.
 */
import sharp from 'sharp';

export const CODE_LEVELS = [16, 48, 80, 112, 144, 176, 208, 240] as const;
export const MAX_CODE = CODE_LEVELS.length ** 3 - 1;
const TOLERANCE = 12;

export type Rgb = readonly [number, number, number];

export function codeColor(id: number): Rgb {
  if (!Number.isInteger(id) || id < 0 || id > MAX_CODE) throw new RangeError(`codeColor: id must be an integer in 0..${MAX_CODE}, got ${id}`);
  return [CODE_LEVELS[(id >> 6) & 7], CODE_LEVELS[(id >> 3) & 7], CODE_LEVELS[id & 7]];
}

export function codeHex(id: number): string {
  return `#${codeColor(id).map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

/** The id a colour encodes, or null when some channel is not near a code level. */
export function decodeColor(rgb: Rgb): number | null {
  let id = 0;
  for (const value of rgb) {
    const level = Math.round((value - 16) / 32);
    if (level < 0 || level > 7 || Math.abs(value - CODE_LEVELS[level]) > TOLERANCE) return null;
    id = id * 8 + level;
  }
  return id;
}

/** A solid PNG of the code colour: a stimulus whose presence in a frame can be read from any of its pixels. */
export async function codeImagePng(id: number, width: number, height: number): Promise<Buffer> {
  const [r, g, b] = codeColor(id);
  return sharp({ create: { width, height, channels: 3, background: { r, g, b } } }).png().toBuffer();
}

export interface RgbaImage {
  width: number;
  height: number;
  data: Buffer;
  pixel(x: number, y: number): [number, number, number, number];
}

export async function decodePng(png: Buffer): Promise<RgbaImage> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  return {
    width,
    height,
    data,
    pixel(x, y) {
      if (x < 0 || y < 0 || x >= width || y >= height) throw new RangeError(`pixel (${x}, ${y}) outside ${width}×${height}`);
      const i = (Math.floor(y) * width + Math.floor(x)) * 4;
      return [data[i], data[i + 1], data[i + 2], data[i + 3]];
    },
  };
}

/** The id shown at CSS pixel (x, y) of a captured frame (device scale 1), or null. */
export function codeAt(image: RgbaImage, x: number, y: number): number | null {
  const [r, g, b] = image.pixel(x, y);
  return decodeColor([r, g, b]);
}

/**
 * The frame index a frame-coded clip (scripts/make-frame-coded-clips.ts) shows: 8 blocks in a row, white for a set
 * bit, black for a clear one; `redOfBit(bit)` reads a block's red level. Null when a block is neither (the grey
 * background: no clip there).
 */
export function clipFrameFromBlocks(redOfBit: (bit: number) => number): number | null {
  let index = 0;
  for (let bit = 0; bit < 8; bit++) {
    const r = redOfBit(bit);
    if (r > 60 && r < 195) return null;
    if (r >= 195) index |= 1 << bit;
  }
  return index;
}
