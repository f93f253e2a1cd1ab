/**
 * What a captured sequence of frames showed, from pixels alone: the successive pixel codes at one point and, for
 * each, the display refreshes it stayed up (vsync of the frame that replaced it minus vsync of its first frame).
 */
import { codeAt, decodePng } from './frameCode';
import type { DisplayFrame } from './virtualDisplay';

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
