/**
 * Video conditions of bench:timing, run inside the page, on frame-coded clips (each frame shows its index as 8
 * black/white blocks, scripts/make-frame-coded-clips.ts):
 * - stage: the clip played to its end by the real StageController (stage clock); a watcher reads the canvas in every
 *   clock frame (the clip's middle row in one readPixels through the debug hook's probeRow, answered right after the
 *   stage rendered; the 8 block centres are taken from it) and notes which clip frame it showed: what the stage drew,
 *   independent of its record;
 * - element: the same clip in a plain <video> element in the page, by its own account (requestVideoFrameCallback:
 *   the mediaTime of each presented frame and its expectedDisplayTime).
 * Each yields, per play, the clip frames shown and for how many refreshes.
 */
import { layoutSingle } from '../../src/web/stage/layouts';
import type { LoadedMedia, PresentationRecord, Rect, StageController } from '../../src/web/stage/types';

/** One clip frame as seen: its index and the refreshes it stayed (to the next frame seen, or the end). */
export interface SeenFrame {
  frame: number;
  refreshes: number;
}

export interface VideoPlay {
  seen: SeenFrame[];
  /** The stage's own record of the play (stage condition). */
  record?: PresentationRecord;
  /** Stage: how the clip's frames reached the texture (debug hook videoUpload). */
  upload?: string | null;
}

function decodeBits(bits: number[]): number | null {
  let index = 0;
  for (const [bit, level] of bits.entries()) {
    if (level > 60 && level < 195) return null;
    if (level >= 195) index |= 1 << bit;
  }
  return index;
}

/** Merge per-frame observations (clip frame or null, timestamp) into clip frames with their refreshes. */
function merge(observed: Array<{ frame: number | null; atMs: number }>, endMs: number, refreshMs: number): SeenFrame[] {
  // Runs of equal observations; each run lasts until the next one starts (the last one until endMs).
  const runs: Array<{ frame: number | null; atMs: number }> = [];
  for (const o of observed) if (runs.at(-1)?.frame !== o.frame) runs.push(o);
  return runs
    .map((run, i) => ({ frame: run.frame, refreshes: Math.round(((runs[i + 1]?.atMs ?? endMs) - run.atMs) / refreshMs) }))
    .filter((s): s is SeenFrame => s.frame !== null && s.refreshes > 0);
}

export async function runVideoStage(stage: StageController, clip: LoadedMedia, plays: number): Promise<VideoPlay[]> {
  await stage.prepare([clip.name]);
  const item = layoutSingle(stage.size(), { media: clip.name, size: stage.mediaSize(clip.name) });
  const hook = window.__glimpseStage!;
  const out: VideoPlay[] = [];
  for (let p = 0; p < plays; p++) {
    const observed: Array<{ frame: number | null; atMs: number }> = [];
    let watching = true;
    const row = blockRow(item.rect, hook.size().width);
    const watch = async () => {
      while (watching) {
        const pixels = await hook.probeRow(row.x, row.y, row.width);
        // Answered inside the clock frame that rendered: the timeline's time is that frame's rAF timestamp.
        // Device pixels per CSS px: the canvas resolution, from the length of the row read.
        const scale = pixels.length / 4 / row.width;
        const reds = row.centres.map((centre) => pixels[Math.floor(centre * scale) * 4]);
        observed.push({ frame: decodeBits(reds), atMs: Number(document.timeline.currentTime) });
      }
    };
    const watcher = watch();
    const records = await stage.play([{ label: 'V', items: [item], end: { kind: 'video-end' } }]);
    watching = false;
    await watcher;
    out.push({ seen: merge(observed, records[0].offsetMs, stage.refreshMs), record: records[0], upload: hook.videoUpload(clip.name) });
    await stage.prepare([clip.name]);
  }
  return out;
}

/** The row read each frame (the clip's middle row, across its width) and each block's centre in it (CSS px from x). */
function blockRow(rect: Rect, canvasWidth: number): { x: number; y: number; width: number; centres: number[] } {
  const x = Math.max(0, Math.floor(rect.x));
  const width = Math.max(1, Math.min(canvasWidth, Math.ceil(rect.x + rect.width)) - x);
  const centres = Array.from({ length: 8 }, (_, bit) => rect.x + ((bit + 0.5) * rect.width) / 8 - x);
  return { x, y: Math.floor(rect.y + rect.height / 2), width, centres };
}

export async function runVideoElement(host: HTMLElement, clip: LoadedMedia, plays: number, refreshMs: number, frameTimes: number[]): Promise<VideoPlay[]> {
  const video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  video.src = clip.url;
  Object.assign(video.style, { maxWidth: '100%', maxHeight: '100%' });
  host.replaceChildren(video);
  host.style.display = 'flex';
  await new Promise((resolve) => video.addEventListener('canplaythrough', resolve, { once: true }));
  const frameOf = (mediaTime: number) => {
    let k = 0;
    while (k + 1 < frameTimes.length && frameTimes[k + 1] <= mediaTime + 0.002) k++;
    return k;
  };
  const out: VideoPlay[] = [];
  for (let p = 0; p < plays; p++) {
    video.currentTime = 0;
    await new Promise((resolve) => video.addEventListener('seeked', resolve, { once: true }));
    const observed: Array<{ frame: number | null; atMs: number }> = [];
    let endMs = 0;
    const onFrame = (_now: number, meta: VideoFrameCallbackMetadata) => {
      observed.push({ frame: frameOf(meta.mediaTime), atMs: meta.expectedDisplayTime });
      if (!video.ended) video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
    await video.play();
    await new Promise((resolve) => video.addEventListener('ended', resolve, { once: true }));
    // The last frame stays until the element's end: its own account ends it at the next refresh after `ended`.
    endMs = await new Promise<number>((resolve) => requestAnimationFrame(resolve));
    out.push({ seen: merge(observed, endMs, refreshMs) });
  }
  host.replaceChildren();
  host.style.display = 'none';
  return out;
}
