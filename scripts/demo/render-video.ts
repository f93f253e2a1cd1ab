import { execFile } from 'node:child_process';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { VideoRecipe } from './media-name.js';
import { subjectSvg } from './render-image.js';

const run = promisify(execFile);

/** ffmpeg binary: FFMPEG env var, else the one on PATH (Debian: apt-get install ffmpeg). */
export const FFMPEG = process.env.FFMPEG || 'ffmpeg';

export const VIDEO_FPS = 25;
/** The panorama is this much wider than the frame; the camera pans across the extra width. */
const PAN_FACTOR = 1.6;

export async function ffmpegAvailable(): Promise<boolean> {
  return run(FFMPEG, ['-version']).then(
    () => true,
    () => false,
  );
}

/**
 * A camera pan over a wide rendering of the scene, encoded as H.264 Constrained Baseline, yuv420p, faststart
 * (moov atom first, so a browser can start before the whole file is read), no audio. The CRF sets the quality
 * level: 18-23 looks clean, 38+ shows blocking on the moving texture.
 */
export async function writeVideo(recipe: VideoRecipe, outPath: string): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'glimpse-video-'));
  try {
    const panoramaWidth = Math.round((recipe.width * PAN_FACTOR) / 2) * 2;
    const panorama = join(work, 'panorama.png');
    await sharp(Buffer.from(subjectSvg({ type: 'scene', scene: recipe.scene }, panoramaWidth, recipe.height))).png().toFile(panorama);
    // Written next to the target and renamed: an interrupted run never leaves a truncated video behind.
    const temporary = `${outPath}.${process.pid}.tmp`;
    const pan = `crop=${recipe.width}:${recipe.height}:x='(iw-ow)*t/${recipe.seconds}':y=0,format=yuv420p`;
    // -loop 1 repeats the still panorama; -t cuts it to the recipe's duration. bitexact flags keep the
    // container free of timestamps/version strings so a re-run gives the same bytes with the same ffmpeg.
    await run(FFMPEG, [
      '-hide_banner', '-loglevel', 'error', '-y',
      '-loop', '1', '-framerate', String(VIDEO_FPS), '-i', panorama,
      '-t', String(recipe.seconds), '-vf', pan,
      '-c:v', 'libx264', '-profile:v', 'baseline', '-level:v', '3.0', '-preset', 'slow', '-crf', String(recipe.crf),
      '-g', String(VIDEO_FPS), '-pix_fmt', 'yuv420p', '-an',
      '-movflags', '+faststart', '-map_metadata', '-1', '-fflags', '+bitexact', '-flags:v', '+bitexact',
      '-f', 'mp4', temporary,
    ]);
    await rename(temporary, outPath);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
