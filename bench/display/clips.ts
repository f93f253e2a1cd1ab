/**
 * `npx tsx bench/display/clips.ts [--gpu [--dry-run]]` — frame-coded clips at 1920×1080 and 3840×2160, 60 fps, 2 s
 * (H.264, scripts/make-frame-coded-clips.ts: each frame shows its index in 8 black/white blocks across the picture),
 * played by the real Stage on the virtual display (testkit/virtualDisplay.ts) at 60 Hz, drawn 1:1 over the whole
 * viewport. The goal: 0 skipped frames, each clip frame on exactly one refresh.
 * - Captured plays (CLIP_CAPTURED_PLAYS, default 2; after the first, only while CLIP_SIZE_BUDGET_S lasts): every display frame captured as a PNG, the clip frame read from
 *   its pixels (the witness, never the page's record): skipped, repeated, exact cadence, and whether the record
 *   (drawn / skipped / repeated frames) says what the capture saw. A capture costs wall time, so virtual time runs
 *   slower than the wall clock here (the wall ms per display frame is given).
 * - Paced plays (CLIP_PACED_PLAYS, default 5): no capture, each display frame sent no earlier than its time on the
 *   wall clock (60 Hz in real time when Chromium draws a frame in under 16.7 ms): the stage's own record only, which
 *   the captured plays checked against the pixels. The decoder has real time per frame here, not more. Before each,
 *   the display's clock is moved to the wall clock (VirtualDisplay.catchUp: after a captured play it is behind, and
 *   the frames would otherwise be sent as fast as Chromium draws until it caught up) and a second of frames sent.
 * Clips: GLIMPSE_BENCH_CLIPS (a folder holding frames-60fps-WxH.mp4, the GPU kit's) or made with ffmpeg into .tmp/.
 * CLIP_SIZES=640x360,… overrides the sizes (a dry run). Writes display-clips.json (SwiftShader), display-gpu.json
 * (--gpu) or display-gpu-dry-run.json under BENCH_RESULTS_DIR (default bench/results) after each size.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { encodeFrameCoded } from '../../scripts/make-frame-coded-clips';
import { clipFrameFromBlocks } from '../../testkit/frameCode';
import { gpuMachine, resultsDir, serveBenchPage } from '../timing/benchPage';
import { displayGraphicsFlags, VirtualDisplay, type DisplayFrame } from '../../testkit/virtualDisplay';
import type { PresentationRecord, PresentationStep, Rect } from '../../src/web/stage/types';
import { displayGpuMode, OPEN_LIMIT_MS, RendererCheck, within } from './gpuDisplay';
import { writeBenchResult } from '../shared/run-stamp';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FPS = 60;
const HZ = 60;
const SECONDS = 2;
const FRAMES = FPS * SECONDS;
const SIZES = (process.env.CLIP_SIZES ?? '1920x1080,3840x2160').split(',').map((s) => s.split('x').map(Number) as [number, number]);
const CAPTURED_PLAYS = Number(process.env.CLIP_CAPTURED_PLAYS ?? 2);
const PACED_PLAYS = Number(process.env.CLIP_PACED_PLAYS ?? 5);
/** Seconds per size after which no further captured play starts (the first one always runs). */
const SIZE_BUDGET_S = Number(process.env.CLIP_SIZE_BUDGET_S ?? 45);
const mode = displayGpuMode();
const renderers = new RendererCheck(mode, 'bench:display clips');
const log = (line: string) => console.log(`[clips ${new Date().toISOString().slice(11, 19)}] ${line}`);
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

function clipFile(width: number, height: number): string {
  const name = `frames-${FPS}fps-${width}x${height}.mp4`;
  const kit = process.env.GLIMPSE_BENCH_CLIPS;
  if (kit && existsSync(path.join(kit, name))) return path.join(kit, name);
  const file = path.join(repoRoot, '.tmp/bench-clips', name);
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    encodeFrameCoded(file, { fps: FPS, seconds: SECONDS, width, height });
  }
  return file;
}

/** The clip frame each captured frame shows (its middle row, the 8 block centres), or null (no clip there). */
async function clipFrameOf(png: Buffer, viewportWidth: number, canvas: Rect, rect: Rect): Promise<number | null> {
  const y = Math.floor(canvas.y + rect.y + rect.height / 2);
  const { data, info } = await sharp(png).extract({ left: 0, top: y, width: viewportWidth, height: 1 }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return clipFrameFromBlocks((bit) => data[Math.floor(canvas.x + rect.x + ((bit + 0.5) * rect.width) / 8) * info.channels]!);
}

interface Shown {
  frame: number | null;
  refreshes: number;
  vsync: number;
}

interface PlayFigures {
  /** Captured: what the pixels showed. */
  captured?: { shown: number; skipped: number; repeated: number; outOfOrder: number; exactCadence: boolean; firstFrame: number | null; lastFrame: number | null };
  record: { drawnFrames: number; skippedFrames: number | null; repeatedFrames: number | null; late: number; droppedFrames: number; skips: unknown[]; repeats: unknown[] };
  recordEqualsCapture?: boolean;
  displayFrames: number;
  /** Wall time per display frame sent during the play (a 60 Hz display in real time: 16.67 ms). */
  wallMsPerFrame: number;
  /** Paced: refreshes the display's vsync grid moved forward to the wall clock before the play (VirtualDisplay.catchUp). */
  caughtUpRefreshes?: number;
}

async function play(display: VirtualDisplay, step: PresentationStep, canvas: Rect, capture: boolean): Promise<PlayFigures> {
  const name = step.items[0].media;
  await display.evaluate((n) => window.__bench.prepare([n]), name);
  const t0 = performance.now();
  const started = await display.evaluate((s) => window.__bench.startPlay([s]), step, { capture, maxFrames: 600 });
  const { value, frames: tail } = await display.evaluate(() => window.__bench.playing!, null, { capture, maxFrames: 3000 });
  const wallMs = performance.now() - t0;
  if (!Array.isArray(value)) throw new Error(`play failed: ${JSON.stringify(value)}`);
  const frames: DisplayFrame[] = [...started.frames, ...tail];
  const record = value[0] as PresentationRecord;
  const video = record.videos![0]!;
  const figures: PlayFigures = {
    record: {
      drawnFrames: video.drawnFrames,
      skippedFrames: video.skippedFrames,
      repeatedFrames: video.repeatedFrames,
      late: video.late?.length ?? 0,
      droppedFrames: record.droppedFrames,
      skips: (video.skips ?? []).slice(0, 20),
      repeats: (video.repeats ?? []).slice(0, 20),
    },
    displayFrames: frames.length,
    wallMsPerFrame: round(wallMs / frames.length),
  };
  if (!capture) return figures;
  const shown: Shown[] = [];
  for (const [i, f] of frames.entries()) {
    const frame = await clipFrameOf(f.png!, display.width, canvas, step.items[0].rect!);
    const refreshes = i + 1 < frames.length ? frames[i + 1]!.vsync - f.vsync : 1;
    const last = shown.at(-1);
    if (last && last.frame === frame) last.refreshes += refreshes;
    else shown.push({ frame, refreshes, vsync: f.vsync });
  }
  const clip = shown.filter((s): s is Shown & { frame: number } => s.frame !== null);
  const seen = new Set(clip.map((s) => s.frame));
  const skipped = Array.from({ length: FRAMES }, (_, k) => k).filter((k) => !seen.has(k)).length;
  // The last frame stays until the step's offset (the next frame shows the background): its refreshes count too.
  const repeated = clip.filter((s) => s.refreshes > HZ / FPS).length;
  const outOfOrder = clip.filter((s, i) => i > 0 && s.frame <= clip[i - 1]!.frame).length;
  const exactCadence = clip.length === FRAMES && clip.every((s, k) => s.frame === k && s.refreshes === HZ / FPS);
  figures.captured = { shown: seen.size, skipped, repeated, outOfOrder, exactCadence, firstFrame: clip[0]?.frame ?? null, lastFrame: clip.at(-1)?.frame ?? null };
  figures.recordEqualsCapture = video.drawnFrames === seen.size && video.skippedFrames === skipped && video.repeatedFrames === repeated;
  return figures;
}

interface SizeResult {
  size: string;
  clipBytes: number;
  renderer: string;
  upload: string | null;
  canvas: Rect;
  captured: PlayFigures[];
  paced: PlayFigures[];
  error?: string;
}

async function runSize(url: string, width: number, height: number): Promise<SizeResult> {
  const file = clipFile(width, height);
  const name = path.basename(file);
  const display = await within(VirtualDisplay.launch({ refreshHz: HZ, width, height, pace: 'wall', fastCapture: process.env.CLIP_FAST_CAPTURE !== '0' }), OPEN_LIMIT_MS, `virtual display at ${width}x${height}`);
  const result: SizeResult = { size: `${width}x${height}`, clipBytes: readFileSync(file).length, renderer: '', upload: null, canvas: { x: 0, y: 0, width: 0, height: 0 }, captured: [], paced: [] };
  try {
    const prepared = await within(
      (async () => {
        await display.goto(url);
        result.renderer = await renderers.check(display);
        log(`${result.size}: renderer ${result.renderer}`);
        await display.evaluate(() => window.__bench.ready(), null);
        await display.evaluate(async ([w, h]) => {
          Object.assign(document.getElementById('stage')!.style, { width: `${w}px`, height: `${h}px` });
          await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
        }, [width, height] as const);
        const base64 = readFileSync(file).toString('base64');
        const { value } = await display.evaluate(async ([n, b]) => {
          window.__bench.addBase64(n, 'video', 'video/mp4', b);
          const [size] = await window.__bench.prepare([n]);
          return { size, upload: window.__glimpseStage!.videoUpload(n), canvas: window.__bench.controller!.clientRect() };
        }, [name, base64] as const);
        return value;
      })(),
      OPEN_LIMIT_MS,
      `virtual display at ${result.size}`,
    );
    if (prepared.size.width !== width || prepared.size.height !== height) throw new Error(`clip is ${prepared.size.width}×${prepared.size.height}, not ${result.size}`);
    result.upload = prepared.upload;
    result.canvas = prepared.canvas;
    // 1:1 over the whole viewport (device pixel ratio 1).
    const step: PresentationStep = { label: 'V', items: [{ media: name, rect: { x: 0, y: 0, width, height } }], end: { kind: 'video-end' } };
    const captured = async () => {
      const f = await play(display, step, prepared.canvas, true);
      result.captured.push(f);
      log(`${result.size} captured play ${result.captured.length}: ${JSON.stringify(f.captured)} record ${JSON.stringify({ ...f.record, skips: undefined, repeats: undefined })} = capture ${f.recordEqualsCapture}; ${f.wallMsPerFrame} ms/frame`);
    };
    // One captured play, the paced plays, then the other captured plays while the size's time budget lasts (a
    // capture at 3840×2160 may cost far more than a refresh: the paced plays must not be the ones left out).
    const t0 = performance.now();
    if (CAPTURED_PLAYS > 0) await captured();
    for (let p = 0; p < PACED_PLAYS; p++) {
      // Virtual time back on the wall clock (a captured play leaves it behind, and the frames after it would be sent
      // as fast as Chromium draws), then a second of frames at the rate, so the stage's period estimate is steady.
      const skippedRefreshes = display.catchUp();
      await display.frames(HZ);
      const f = await play(display, step, prepared.canvas, false);
      f.caughtUpRefreshes = skippedRefreshes;
      result.paced.push(f);
      log(`${result.size} paced play ${p + 1}: record ${JSON.stringify({ ...f.record, skips: undefined, repeats: undefined })}; ${f.wallMsPerFrame} ms/frame (caught up ${skippedRefreshes} refreshes first)`);
    }
    while (result.captured.length < CAPTURED_PLAYS && (performance.now() - t0) / 1000 < SIZE_BUDGET_S) await captured();
  } catch (error) {
    result.error = String(error instanceof Error ? error.message : error).slice(0, 2000);
    log(`${result.size}: FAILED ${result.error}`);
  } finally {
    await display.close();
  }
  return result;
}

function summary(r: SizeResult): Record<string, unknown> {
  const sum = (list: PlayFigures[], f: (p: PlayFigures) => number) => list.reduce((s, p) => s + f(p), 0);
  return {
    size: r.size,
    upload: r.upload,
    capturedPlays: r.captured.length,
    capturedSkipped: sum(r.captured, (p) => p.captured!.skipped),
    capturedRepeated: sum(r.captured, (p) => p.captured!.repeated),
    capturedExactCadence: r.captured.filter((p) => p.captured!.exactCadence).length,
    recordEqualsCapture: r.captured.filter((p) => p.recordEqualsCapture).length,
    capturedWallMsPerFrame: r.captured.map((p) => p.wallMsPerFrame),
    pacedPlays: r.paced.length,
    pacedSkipped: sum(r.paced, (p) => p.record.skippedFrames ?? Number.NaN),
    pacedRepeated: sum(r.paced, (p) => p.record.repeatedFrames ?? Number.NaN),
    pacedDropped: sum(r.paced, (p) => p.record.droppedFrames),
    pacedWallMsPerFrame: r.paced.map((p) => p.wallMsPerFrame),
    ...(r.error ? { error: r.error } : {}),
  };
}

function markdown(results: SizeResult[]): string {
  const out = [
    `| clip (${FPS} fps, ${SECONDS} s, ${HZ} Hz) | upload | captured plays: skipped / repeated frames, exact cadence, record = capture | wall ms per display frame (captured) | paced plays (record): skipped / repeated / dropped | wall ms per display frame (paced) |`,
    '|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const s = summary(r) as Record<string, number & number[]>;
    out.push(
      `| ${r.size} | ${r.upload ?? '–'} | ${s.capturedSkipped} / ${s.capturedRepeated}, ${s.capturedExactCadence} of ${s.capturedPlays}, ${s.recordEqualsCapture} of ${s.capturedPlays} | ${s.capturedWallMsPerFrame.join(', ')} | ${s.pacedSkipped} / ${s.pacedRepeated} / ${s.pacedDropped} (${s.pacedPlays} plays) | ${s.pacedWallMsPerFrame.join(', ')} |${r.error ? ` error: ${r.error.slice(0, 200)}` : ''}`,
    );
  }
  return out.join('\n');
}

const outFile = path.join(resultsDir(), mode.dryRun ? 'display-gpu-dry-run.json' : mode.gpu ? 'display-gpu.json' : 'display-clips.json');
const served = await serveBenchPage({ outDir: 'bench-display-clips' });
const started = new Date().toISOString();
const t0 = performance.now();
const results: SizeResult[] = [];
try {
  for (const [width, height] of SIZES) {
    // A display that never answered at the first size will not at the next: the lease is short.
    if (results.some((r) => r.error?.includes('no answer within'))) break;
    results.push(await runSize(served.url, width, height));
    writeBenchResult(outFile, {
      bench: 'display-clips',
      started,
      seconds: Math.round((performance.now() - t0) / 1000),
      clip: { fps: FPS, seconds: SECONDS, frames: FRAMES, codec: 'H.264 (libx264 main, crf 12)', refreshHz: HZ, capturedPlays: CAPTURED_PLAYS, pacedPlays: PACED_PLAYS },
      host: { cpus: os.cpus().length, model: os.cpus()[0]?.model, load: os.loadavg() },
      gpu: mode.gpu,
      dryRun: mode.dryRun,
      graphicsFlags: displayGraphicsFlags(),
      machine: gpuMachine(),
      renderers: [...renderers.seen],
      summary: results.map(summary),
      sizes: results,
    });
  }
  console.log(markdown(results));
} finally {
  await served.close();
}
process.exit(results.some((r) => r.error) ? 1 : 0);
