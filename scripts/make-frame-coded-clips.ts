/**
 * Frame-coded clips for the video timing tests (`npm run media:clips [-- out-folder]`, default
 * tests/fixtures/clips): each frame shows its own index in binary, 8 blocks of 16×16 px from the left (bit 0 first),
 * white (235) for 1 and black (16) for 0, so a captured display frame tells which clip frame it shows without the
 * page's help. H.264 (baseline) at 24, 25, 30, 50 and 60 fps, one second each, a VP9 WebM at 30 fps, and an H.264
 * High profile clip at 30 fps with B-frames (decode order runs ahead of presentation order: the player must feed the
 * decoder past the frames it shows). Needs ffmpeg
 * (Debian: `apt-get install -y ffmpeg`); the committed clips are a few KB each.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const CODE_BITS = 8;
export const CODE_BLOCK = 16;
export const CLIP_RATES = [24, 25, 30, 50, 60] as const;

export function clipName(fps: number, codec: 'h264' | 'vp9' = 'h264', bFrames = false): string {
  if (codec === 'vp9') return `frames-${fps}fps-vp9.webm`;
  return bFrames ? `frames-${fps}fps-bframes.mp4` : `frames-${fps}fps.mp4`;
}

export interface FrameCodedClip {
  fps: number;
  codec?: 'h264' | 'vp9';
  seconds?: number;
  /** Default 128×16 (8 blocks of 16 px); larger sizes stretch the 8 blocks over the whole picture. */
  width?: number;
  height?: number;
  /** H.264 High profile with 3 B-frames between references, forced (x264 would otherwise pick them adaptively). */
  bFrames?: boolean;
}

/** Writes one frame-coded clip to `file` with ffmpeg. */
export function encodeFrameCoded(file: string, { fps, codec = 'h264', seconds = 1, width = CODE_BITS * CODE_BLOCK, height = CODE_BLOCK, bFrames = false }: FrameCodedClip): void {
  const block = width / CODE_BITS;
  const lum = `if(bitand(floor(N/pow(2\\,floor(X/${block})))\\,1)\\,235\\,16)`;
  const profile = bFrames ? ['-profile:v', 'high', '-bf', '3', '-x264-params', 'b-adapt=0'] : ['-profile:v', width > 640 ? 'main' : 'baseline'];
  const codecArgs = codec === 'h264' ? ['-c:v', 'libx264', ...profile, '-crf', '12', '-movflags', '+faststart'] : ['-c:v', 'libvpx-vp9', '-crf', '20', '-b:v', '0'];
  execFileSync('ffmpeg', [
    '-v', 'error', '-y',
    '-f', 'lavfi', '-i', `color=black:s=${width}x${height}:r=${fps}:d=${seconds}`,
    '-vf', `geq=lum='${lum}':cb=128:cr=128,format=yuv420p`,
    '-g', String(fps), ...codecArgs, file,
  ]);
}

export function makeFrameCodedClips(out: string, seconds = 1): string[] {
  mkdirSync(out, { recursive: true });
  for (const fps of CLIP_RATES) encodeFrameCoded(join(out, clipName(fps)), { fps, seconds });
  encodeFrameCoded(join(out, clipName(30, 'vp9')), { fps: 30, codec: 'vp9', seconds });
  encodeFrameCoded(join(out, clipName(30, 'h264', true)), { fps: 30, seconds, bFrames: true });
  return [...CLIP_RATES.map((fps) => clipName(fps)), clipName(30, 'vp9'), clipName(30, 'h264', true)];
}

if (process.argv[1]?.endsWith('make-frame-coded-clips.ts')) {
  const out = process.argv[2] ?? 'tests/fixtures/clips';
  console.log(makeFrameCodedClips(out).map((name) => join(out, name)).join('\n'));
}
