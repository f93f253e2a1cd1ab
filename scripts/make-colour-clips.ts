/**
 * Colour-bar clips for the video colour checks (`npm run media:colour [-- out-folder]`, default
 * tests/fixtures/colour): 75 % bars and a skin tone, H.264, two frames, in each matrix, range and tagging the stage
 * must show exactly (docs/pixels.md), and `reference.json`: each bar's colour as ffmpeg decodes the
 * clip with the matrix and range the stage must use (the file's tags, or for an untagged file the convention:
 * BT.709 from 1280 wide or above 576 lines, else BT.601). Needs ffmpeg (Debian: `apt-get install -y ffmpeg`); the
 * committed clips are a few KB each, so the tests need no ffmpeg. Also three clips the importer refuses (REFUSED).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';

/** 75 % bars (white, yellow, cyan, green, magenta, red, blue, black) and a skin tone, in source RGB. */
export const BARS: ReadonlyArray<readonly [number, number, number]> = [
  [191, 191, 191],
  [191, 191, 0],
  [0, 191, 191],
  [0, 191, 0],
  [191, 0, 191],
  [191, 0, 0],
  [0, 0, 191],
  [16, 16, 16],
  [224, 172, 140],
];

export interface ColourClip {
  file: string;
  width: number;
  height: number;
  /** The matrix and range the pixels were encoded with. */
  matrix: 'bt709' | 'bt601';
  range: 'tv' | 'pc';
  /** Written into the stream (VUI) and the container. */
  tagged: boolean;
  /** Display rotation written into the container, clockwise degrees. */
  rotation?: 90 | 270;
}

export const COLOUR_CLIPS: readonly ColourClip[] = [
  { file: 'bars-bt709-limited.mp4', width: 320, height: 180, matrix: 'bt709', range: 'tv', tagged: true },
  { file: 'bars-bt709-full.mp4', width: 320, height: 180, matrix: 'bt709', range: 'pc', tagged: true },
  { file: 'bars-bt601-limited.mp4', width: 320, height: 180, matrix: 'bt601', range: 'tv', tagged: true },
  { file: 'bars-bt601-full.mp4', width: 320, height: 180, matrix: 'bt601', range: 'pc', tagged: true },
  { file: 'bars-untagged-bt601.mp4', width: 320, height: 180, matrix: 'bt601', range: 'tv', tagged: false },
  { file: 'bars-untagged-bt709-hd.mp4', width: 1280, height: 720, matrix: 'bt709', range: 'tv', tagged: false },
  { file: 'bars-bt601-rotated-90.mp4', width: 320, height: 180, matrix: 'bt601', range: 'tv', tagged: true, rotation: 90 },
  { file: 'bars-bt601-rotated-270.mp4', width: 320, height: 180, matrix: 'bt601', range: 'tv', tagged: true, rotation: 270 },
];

/** The centre of bar `i` (what the checks read: away from chroma edges). */
export function barCentre(i: number, width: number, height: number): { x: number; y: number } {
  const bar = width / BARS.length;
  return { x: Math.floor(bar * i + bar / 2), y: Math.floor(height / 2) };
}

async function barsPng(width: number, height: number): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set(BARS[Math.min(BARS.length - 1, Math.floor((x * BARS.length) / width))]!, (y * width + x) * 3);
  }
  return sharp(data, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

const SWS = 'accurate_rnd+full_chroma_int+bitexact';

function encode(source: string, out: string, clip: ColourClip): void {
  const ffMatrix = clip.matrix === 'bt709' ? 'bt709' : 'smpte170m';
  const tags = clip.tagged ? ['-colorspace', ffMatrix, '-color_primaries', ffMatrix, '-color_trc', ffMatrix, '-color_range', clip.range] : [];
  execFileSync('ffmpeg', [
    '-v', 'error', '-y', '-loop', '1', '-i', source, '-frames:v', '2', '-r', '25',
    '-sws_flags', SWS,
    '-vf', `scale=out_color_matrix=${clip.matrix}:out_range=${clip.range},format=yuv420p`,
    '-c:v', 'libx264', '-profile:v', 'high', '-crf', '1',
    ...tags, '-movflags', '+faststart', '-map_metadata', '-1', '-fflags', '+bitexact', out,
  ]);
  if (clip.rotation) {
    // ffmpeg 5.1 writes the display matrix from the `rotate` tag only when it copies the stream, and that matrix
    // turns the picture counter-clockwise by the tag (checked: its own autorotate and ffprobe agree).
    const turned = `${out}.turned.mp4`;
    const tag = (360 - clip.rotation) % 360;
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', out, '-c', 'copy', '-metadata:s:v:0', `rotate=${tag}`, '-movflags', '+faststart', '-fflags', '+bitexact', turned]);
    execFileSync('mv', [turned, out]);
  }
}

/** The displayed size: a quarter turn swaps the sides. */
export function shownSize(clip: ColourClip): { width: number; height: number } {
  return clip.rotation ? { width: clip.height, height: clip.width } : { width: clip.width, height: clip.height };
}

/**
 * Where bar `i`'s centre is on the displayed (turned) picture: a clockwise quarter turn puts the left column on
 * the top row, three of them on the bottom row.
 */
export function shownBarCentre(i: number, clip: ColourClip): { x: number; y: number } {
  const { x, y } = barCentre(i, clip.width, clip.height);
  if (clip.rotation === 90) return { x: clip.height - 1 - y, y: x };
  if (clip.rotation === 270) return { x: y, y: clip.width - 1 - x };
  return { x, y };
}

/** Bar colours of the clip's first frame as players show it (turned), decoded by ffmpeg with the given matrix and range. */
function referenceDecode(file: string, clip: ColourClip): Array<[number, number, number]> {
  const { width } = shownSize(clip);
  const rgb = execFileSync('ffmpeg', [
    '-v', 'error', '-i', file, '-frames:v', '1', '-sws_flags', SWS,
    '-vf', `scale=in_color_matrix=${clip.matrix}:in_range=${clip.range},format=rgb24`, '-f', 'rawvideo', '-',
  ], { maxBuffer: 64 << 20 });
  return BARS.map((_, i) => {
    const { x, y } = shownBarCentre(i, clip);
    const at = (y * width + x) * 3;
    return [rgb[at]!, rgb[at + 1]!, rgb[at + 2]!];
  });
}

/**
 * Clips the importer refuses (tests/server/study-import.test.ts): 10-bit H.264 (High 10), HDR PQ VP9 (profile 2,
 * BT.2020) and HLG-tagged H.264. 64×64, two frames.
 */
const REFUSED: ReadonlyArray<[string, string[]]> = [
  ['high10.mp4', ['-pix_fmt', 'yuv420p10le', '-c:v', 'libx264', '-crf', '30']],
  ['hdr-pq.webm', ['-pix_fmt', 'yuv420p10le', '-c:v', 'libvpx-vp9', '-crf', '40', '-b:v', '0', '-color_primaries', 'bt2020', '-color_trc', 'smpte2084', '-colorspace', 'bt2020nc']],
  ['hdr-hlg.mp4', ['-pix_fmt', 'yuv420p', '-c:v', 'libx264', '-crf', '30', '-color_primaries', 'bt2020', '-color_trc', 'arib-std-b67', '-colorspace', 'bt2020nc']],
];

export async function makeColourClips(out: string): Promise<void> {
  mkdirSync(out, { recursive: true });
  for (const [file, args] of REFUSED) {
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=s=64x64:d=0.08:r=25', ...args, '-map_metadata', '-1', '-fflags', '+bitexact', join(out, file)]);
  }
  const reference: Record<string, unknown> = {};
  for (const clip of COLOUR_CLIPS) {
    const source = join(out, `source-${clip.width}x${clip.height}.png`);
    writeFileSync(source, await barsPng(clip.width, clip.height));
    const file = join(out, clip.file);
    encode(source, file, clip);
    reference[clip.file] = { ...clip, bars: referenceDecode(file, clip) };
    execFileSync('rm', ['-f', source]);
  }
  writeFileSync(join(out, 'reference.json'), `${JSON.stringify({ source: BARS, clips: reference }, null, 1)}\n`);
}

if (process.argv[1]?.endsWith('make-colour-clips.ts')) {
  const out = process.argv[2] ?? 'tests/fixtures/colour';
  await makeColourClips(out);
  console.log(`${COLOUR_CLIPS.length} clips and reference.json in ${out}`);
}
