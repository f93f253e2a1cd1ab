/**
 * The colour rule for images at import (docs/pixels.md): the stage draws an image's stored values as
 * they are, with no colour conversion, so an image is accepted only when those values mean sRGB on the display.
 *
 * - Accepted: 8 bits per channel, untagged, or tagged sRGB (an ICC profile whose description names sRGB, a PNG sRGB
 *   chunk, or a PNG gAMA of 1/2.2, which is what sRGB files carry).
 * - Refused, naming the file and the tag: another ICC profile (Display P3, Adobe RGB, a camera profile), a PNG gAMA
 *   other than 1/2.2, a PNG cHRM whose primaries are not sRGB's, and 16 bits per channel. A browser would convert
 *   or truncate these, each in its own way; the researcher converts them once, with a tool they choose, so what
 *   the study shows is a file they have.
 */
import { open } from 'node:fs/promises';
import sharp, { type Metadata } from 'sharp';

/** PNG gAMA of sRGB files: 1/2.2 × 100000, rounded (libpng writes 45455; some tools write 45454). */
const SRGB_GAMMA = [45454, 45455, 45456];
/** sRGB's white point and primaries in PNG cHRM units (× 100000), and the tolerance of writers' rounding. */
const SRGB_CHROMATICITIES = [31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000];
const CHROMATICITY_TOLERANCE = 100;
/** Only the chunks before the image data are read: the colour chunks must precede IDAT. */
const PNG_HEADER_BYTES = 1 << 20;

/** Why this image's stored values are not sRGB as the stage draws them, or null when they are. */
export async function imageColourProblem(path: string, source: string): Promise<string | null> {
  let metadata: Metadata;
  try {
    metadata = await sharp(path).metadata();
  } catch (error) {
    return `image ${source} cannot be read: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (metadata.depth && metadata.depth !== 'uchar') {
    return `image ${source} has 16 bits per channel: browsers show 8, each rounding its own way; convert it to 8 bits (e.g. \`magick ${source} -depth 8 out.png\`)`;
  }
  if (metadata.icc) {
    const name = iccDescription(metadata.icc);
    if (!name || !/\bsRGB\b/i.test(name)) {
      return `image ${source} carries the colour profile "${name ?? 'unnamed'}": the stage shows stored values as sRGB, without conversion; convert it to sRGB once and remove the profile (e.g. \`magick ${source} -profile sRGB.icc -strip out.png\`)`;
    }
  }
  if (metadata.format === 'png') return pngColourChunkProblem(path, source);
  return null;
}

/** The PNG's gAMA and cHRM, when present and not sRGB's (an sRGB or iCCP chunk decides instead). */
async function pngColourChunkProblem(path: string, source: string): Promise<string | null> {
  const chunks = await pngChunks(path);
  if (chunks.has('sRGB') || chunks.has('iCCP')) return null;
  const gama = chunks.get('gAMA');
  if (gama && gama.length === 4) {
    const gamma = gama.readUInt32BE(0);
    if (!SRGB_GAMMA.includes(gamma)) {
      return `image ${source} declares a gamma of 1/${(100000 / gamma).toFixed(2)} (PNG gAMA ${gamma}), not sRGB's 1/2.2: browsers would re-encode it; convert it to sRGB and remove the chunk`;
    }
  }
  const chrm = chunks.get('cHRM');
  if (chrm && chrm.length === 32) {
    const values = Array.from({ length: 8 }, (_, i) => chrm.readUInt32BE(i * 4));
    if (values.some((v, i) => Math.abs(v - SRGB_CHROMATICITIES[i]!) > CHROMATICITY_TOLERANCE)) {
      return `image ${source} declares primaries other than sRGB's (PNG cHRM): convert it to sRGB and remove the chunk`;
    }
  }
  return null;
}

/** The ancillary chunks before the first IDAT, by type (the last of each type). */
async function pngChunks(path: string): Promise<Map<string, Buffer>> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(PNG_HEADER_BYTES);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    const chunks = new Map<string, Buffer>();
    for (let at = 8; at + 8 <= bytesRead; ) {
      const length = head.readUInt32BE(at);
      const type = head.toString('latin1', at + 4, at + 8);
      if (type === 'IDAT' || type === 'IEND' || at + 12 + length > bytesRead) break;
      chunks.set(type, head.subarray(at + 8, at + 8 + length));
      at += 12 + length;
    }
    return chunks;
  } finally {
    await file.close();
  }
}

/**
 * The profile's description (ICC v2 'desc' or v4 'mluc'), or null. ICC: a 128-byte header, then a tag count and
 * 12-byte entries (signature, offset, size).
 */
export function iccDescription(icc: Buffer): string | null {
  if (icc.length < 132) return null;
  const count = icc.readUInt32BE(128);
  for (let i = 0; i < count && 132 + i * 12 + 12 <= icc.length; i++) {
    const entry = 132 + i * 12;
    if (icc.toString('latin1', entry, entry + 4) !== 'desc') continue;
    const offset = icc.readUInt32BE(entry + 4);
    const size = icc.readUInt32BE(entry + 8);
    if (offset + size > icc.length || size < 12) return null;
    const tag = icc.subarray(offset, offset + size);
    const type = tag.toString('latin1', 0, 4);
    if (type === 'desc') {
      const length = tag.readUInt32BE(8);
      return tag.toString('latin1', 12, Math.min(tag.length, 12 + length)).replace(/\0+$/, '');
    }
    if (type === 'mluc' && tag.length >= 28) {
      const recordLength = tag.readUInt32BE(20);
      const recordOffset = tag.readUInt32BE(24);
      if (recordOffset + recordLength > tag.length) return null;
      const text = Buffer.from(tag.subarray(recordOffset, recordOffset + (recordLength & ~1)));
      return text.swap16().toString('utf16le');
    }
    return null;
  }
  return null;
}
