/**
 * What a captured sequence of frames showed, from pixels alone: the successive pixel codes at one point and, for
 * each, the display refreshes it stayed up (vsync of the frame that replaced it minus vsync of its first frame);
 * and a captured rectangle's pixels, to compare pictures (3D poses against their golden renders).
 */
import sharp from 'sharp';
import { codeAt, decodePng } from './frameCode';
import type { DisplayFrame } from './virtualDisplay';

/** A rectangle of a captured PNG as raw RGB; `side`: sampled (nearest) to side × side pixels, to compare many faster. */
export async function cropRgb(png: Buffer, rect: { x: number; y: number; width: number; height: number }, side?: number): Promise<Buffer> {
  const cropped = sharp(png).extract({ left: rect.x, top: rect.y, width: rect.width, height: rect.height });
  return (side ? cropped.resize(side, side, { kernel: 'nearest' }) : cropped).removeAlpha().raw().toBuffer();
}

/** Mean absolute difference per channel (0–255) of two pictures of the same size. */
export function meanDifference(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

export interface ShownRun {
  code: number | null;
  /** Index in the frames of its first frame. */
  start: number;
  /** Refreshes on screen; null when the capture ended before it was replaced. */
  refreshes: number | null;
}

export async function shownRuns(frames: readonly DisplayFrame[], x: number, y: number): Promise<ShownRun[]> {
  const codes = await Promise.all(frames.map(async (f) => codeAt(await decodePng(f.png!), x, y)));
  const runs: ShownRun[] = [];
  codes.forEach((code, i) => {
    if (runs.length === 0 || runs[runs.length - 1].code !== code) runs.push({ code, start: i, refreshes: null });
  });
  runs.forEach((run, i) => {
    const next = runs[i + 1];
    if (next) run.refreshes = frames[next.start].vsync - frames[run.start].vsync;
  });
  return runs;
}
