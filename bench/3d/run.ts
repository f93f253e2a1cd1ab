/**
 * `npm run bench:3d [-- --quick] [-- --gpu]`: 3D objects on the stage (docs/3d-objects.md, issue 18), in one run:
 * 1. render cost per frame at 1920×1080 of a 1 M-triangle textured mesh and a 1 M-point cloud (drawn 1024×1024, 4×
 *    MSAA), as a ratio to the same stage drawing a 1024×1024 image in the same rectangle (each frame rendered in
 *    full and waited for with a 1-pixel read: the debug hook's measureRender);
 * 2. pose-to-pixel latency in inspect mode on the virtual display: display frames from a pointer move to the first
 *    captured frame whose pixels change (goal: the frame that delivers the event);
 * 3. turntable presentations exact to the frame on the virtual display, each captured refresh matched to the golden
 *    renders of the poses: clean (goal 100 %) and with injected missed vsyncs (each skipped pose, as the capture
 *    shows it, named by the record);
 * 4. the first participant bundle of a 2D study (< 150 KB gzip, no three.js in it).
 * Writes bench/results/3d.json (3d-gpu.json with --gpu). Default graphics: SwiftShader; --gpu: the machine's GPU
 * (GLIMPSE_GPU_FLAGS), and only part 1 (the virtual display is a SwiftShader harness; the bundle is the same).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OBJECT_DEFAULTS, type ResolvedObjectOptions } from '../../src/contract/objects';
import type { PresentationRecord, PresentationStep, Rect } from '../../src/web/stage/types';
import { cropRgb, meanDifference } from '../../testkit/captureRuns';
import { VirtualDisplay, type DisplayFrame } from '../../testkit/virtualDisplay';
import { gpuMachine, isSoftwareRenderer, openBenchPage, resultsDir, serveBenchPage } from '../timing/benchPage';
import { measureInitialJs } from '../timing/bundleSize';
import { quantile, summary } from '../shared/measure';
import { cloudPly, sphereGlb, texturePng } from './content';
import { writeBenchResult } from '../shared/run-stamp';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(benchDir, '../..');
const quick = process.argv.includes('--quick');
const gpu = process.argv.includes('--gpu');
const FRAMES = quick ? 4 : gpu ? 120 : 8;
const TRIANGLES = 1_000_000;
const POINTS = 1_000_000;
const LATENCY_MOVES = quick ? 8 : 20;
const CLEAN_PLAYS = quick ? 2 : 5;
const DROP_PLAYS = quick ? 2 : 4;

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
const log = (message: string) => console.error(`[bench:3d] ${message}`);
const options = (o: Partial<ResolvedObjectOptions>): ResolvedObjectOptions => ({ ...OBJECT_DEFAULTS, ...o });

/** Part 1: per-frame render cost at 1080p, image vs mesh vs point cloud, one page, one run. */
async function renderCost() {
  const png = await texturePng();
  const [glb, ply] = [await sphereGlb(TRIANGLES, png), cloudPly(POINTS)];
  const bench = await openBenchPage({ root: benchDir, outDir: 'bench-3d', viewport: { width: 1920, height: 1080 }, gpu });
  try {
    const { page } = bench;
    const renderer = await page.evaluate(() => window.__bench3d.renderer());
    log(`renderer: ${renderer}`);
    if (gpu && isSoftwareRenderer(renderer)) throw new Error(`--gpu: the WebGL renderer is "${renderer}", not a GPU`);
    await page.evaluate(() => window.__bench3d.ready());
    await page.evaluate(([i, m, c]) => {
      window.__bench3d.addImage('image.png', 'image/png', i);
      window.__bench3d.addModel('mesh.glb', 'model/gltf-binary', m);
      window.__bench3d.addModel('cloud.ply', 'model/ply', c);
    }, [png.toString('base64'), Buffer.from(glb).toString('base64'), ply.toString('base64')] as const);
    const loadStart = Date.now();
    const prepared = await page.evaluate(() => window.__bench3d.prepare(['image.png', 'mesh.glb', 'cloud.ply']));
    if (!Array.isArray(prepared)) throw new Error(`prepare failed: ${prepared.error}`);
    const prepareMs = Date.now() - loadStart;
    const rect: Rect = { x: (1920 - 1024) / 2, y: (1080 - 1024) / 2, width: 1024, height: 1024 };
    const conditions = [
      { name: 'image', media: 'image.png', object: undefined },
      { name: 'mesh 1M triangles (textured)', media: 'mesh.glb', object: options({ mode: 'inspect' }) },
      { name: 'point cloud 1M points (2 px)', media: 'cloud.ply', object: options({ mode: 'inspect', pointSize: 2 }) },
    ];
    const results: Array<{ name: string; frames: number; medianMs: number; meanMs: number; p95Ms: number }> = [];
    for (const condition of conditions) {
      const steps: PresentationStep[] = [{ label: 'S', items: [{ media: condition.media, rect, ...(condition.object ? { object: condition.object } : {}) }], end: { kind: 'hold' } }];
      const costs = await page.evaluate(
        async ([s, frames]) => {
          await window.__bench3d.startPlay(s);
          const hook = window.__glimpseStage!;
          const next = () => new Promise((r) => requestAnimationFrame(r));
          for (let i = 0; i < 3; i++) await next();
          hook.measureRender(true);
          for (let i = 0; i < frames; i++) await next();
          const noted = hook.measureRender(false);
          await window.__bench3d.release();
          return noted;
        },
        [steps, FRAMES] as const,
      );
      const cost = summary(costs, 2);
      results.push({ name: condition.name, frames: cost.n, medianMs: cost.p50, meanMs: cost.mean, p95Ms: cost.p95 });
      log(`${condition.name}: median ${cost.p50} ms over ${cost.n} frames`);
    }
    const image = results[0]!.medianMs;
    return { renderer, graphicsArgs: bench.graphicsArgs, viewport: '1920x1080', drawnRect: '1024x1024', msaa: 4, prepareMs, conditions: results.map((r) => ({ ...r, ratioToImage: round(r.medianMs / image) })) };
  } finally {
    await bench.close();
  }
}

/** A captured rectangle that differs from another by more than this mean (0–255 per channel) shows another picture. */
const CHANGED = 0.5;
/** Frames waited for a pointer move to change the pixels before it counts as never drawn. */
const LATENCY_CAP = 30;

/**
 * Parts 2 and 3 on the virtual display (60 Hz, 640×360, the small textured cube), judged from the captured pixels
 * alone: the page's own poses and record are read only to say whether they agree with the capture.
 */
async function onVirtualDisplay() {
  const served = await serveBenchPage({ root: benchDir, outDir: 'bench-3d-display' });
  const display = await VirtualDisplay.launch({ refreshHz: 60, width: 640, height: 360 });
  try {
    await display.goto(served.url);
    await display.evaluate(() => window.__bench3d.ready(), null);
    const cube = readFileSync(path.join(repoRoot, 'tests/fixtures/objects/cube.glb')).toString('base64');
    await display.read((data) => window.__bench3d.addModel('cube.glb', 'model/gltf-binary', data), cube);
    await display.evaluate(() => window.__bench3d.prepare(['cube.glb']), null);
    const rect: Rect = { x: 170, y: 30, width: 300, height: 300 };
    // Sampled to 100 × 100: each refresh is compared with 60 golden renders.
    const pictureOf = async (frame: DisplayFrame | undefined) => (frame?.png ? cropRgb(frame.png, rect, 100) : null);
    const background = (await pictureOf(await display.frame({ capture: true })))!;

    // Latency: pointer moves during an inspection; display frames from the move to the first captured frame whose
    // pixels change (the frame that delivers the move is frame 1).
    const inspect: PresentationStep[] = [{ label: 'S', items: [{ media: 'cube.glb', rect, object: options({ mode: 'inspect' }) }], end: { kind: 'hold' } }];
    await display.evaluate((s) => window.__bench3d.startPlay(s), inspect);
    await display.frames(3);
    await display.mouse('mousePressed', 320, 180);
    let shown = (await pictureOf(await display.frame({ capture: true })))!;
    const latencies: number[] = [];
    let unchanged = 0;
    let lostCaptures = 0;
    for (let i = 1; i <= LATENCY_MOVES; i++) {
      const sent = await display.mouse('mouseMoved', 320 + 7 * i, 180 + (i % 3), { capture: true });
      let frames = 0;
      let changedAt: number | null = null;
      for (let next = 0; changedAt === null && frames < LATENCY_CAP; next++) {
        const frame = next < sent.length ? sent[next] : await display.frame({ capture: true });
        frames++;
        const picture = await pictureOf(frame);
        if (!picture) lostCaptures++;
        else if (meanDifference(picture, shown) > CHANGED) {
          changedAt = frames;
          shown = picture;
        }
      }
      if (changedAt === null) unchanged++;
      else latencies.push(changedAt);
    }
    await display.mouse('mouseReleased', 320 + 7 * LATENCY_MOVES, 180);
    await display.evaluate(() => window.__bench3d.release(), null);

    // Turntable exactness: 60 poses at 60 poses/s on 60 Hz, pose k due at refresh k of the step. Each captured
    // refresh is matched to the closest of the 60 poses' golden renders (the cube drawn as a one-pose turntable at
    // that azimuth, the frame that differs from the empty stage).
    const turntableOptions = options({ frames: 60, posesPerSecond: 60, degreesPerSecond: 90 });
    const turntable: PresentationStep[] = [{ label: 'S', items: [{ media: 'cube.glb', rect, object: turntableOptions }], end: { kind: 'video-end' } }];
    const capturedPlay = async (steps: PresentationStep[], plan?: (n: number) => { missedVsyncs?: number } | undefined) => {
      const { value, frames } = await display.evaluate(
        async (s) => {
          await window.__bench3d.startPlay(s);
          return window.__bench3d.playing!;
        },
        steps,
        { capture: true, plan },
      );
      frames.push(...(await display.frames(2, { capture: true })));
      return { record: (value as PresentationRecord[])[0]!, frames };
    };
    const goldens: Buffer[] = [];
    for (let k = 0; k < 60; k++) {
      const one: PresentationStep[] = [{ label: 'S', items: [{ media: 'cube.glb', rect, object: { ...turntableOptions, frames: 1, startAzimuthDeg: 1.5 * k } }], end: { kind: 'video-end' } }];
      const pictures = (await Promise.all((await capturedPlay(one)).frames.map(pictureOf))).filter((p) => p !== null);
      goldens.push(pictures.reduce((best, p) => (meanDifference(p, background) > meanDifference(best, background) ? p : best)));
    }
    /** The pose each refresh of the step showed, from its onset (the first frame off the empty stage) on. */
    const posesShown = async (frames: DisplayFrame[]) => {
      const pictures = await Promise.all(frames.map(pictureOf));
      const drawn = pictures.map((p) => p !== null && meanDifference(p, background) > CHANGED);
      const onset = drawn.indexOf(true);
      if (onset < 0) return null;
      const byRefresh: Array<number | null> = [];
      for (let at = onset; at < frames.length; at++) {
        const picture = pictures[at];
        const differences = picture && drawn[at] ? goldens.map((g) => meanDifference(picture, g)) : null;
        const pose = differences ? differences.indexOf(Math.min(...differences)) : null;
        // A missed vsync: the picture before stayed up for the refreshes it spans.
        const refreshes = at + 1 < frames.length ? frames[at + 1]!.vsync - frames[at]!.vsync : 1;
        for (let r = 0; r < refreshes; r++) byRefresh.push(pose);
      }
      return byRefresh;
    };
    let exact = 0;
    let recordAgrees = 0;
    for (let i = 0; i < CLEAN_PLAYS; i++) {
      const { record, frames } = await capturedPlay(turntable);
      const shownPoses = await posesShown(frames);
      const onCadence = shownPoses !== null && shownPoses.slice(0, 60).every((pose, k) => pose === k) && shownPoses[60] === null;
      if (onCadence) exact++;
      const o = record.object!;
      const recordSaysExact = o.drawnFrames === 60 && o.skippedFrames === 0 && o.repeatedFrames === 0 && record.shownFrames === 60;
      if (recordSaysExact === onCadence) recordAgrees++;
    }
    const dropRuns: Array<{ injected: number; droppedFrames: number; skippedInCapture: number[]; skippedInRecord: number[] }> = [];
    for (let i = 0; i < DROP_PLAYS; i++) {
      const at = new Set([10 + 7 * i, 30 + 5 * i]);
      const { record, frames } = await capturedPlay(turntable, (n) => (at.has(n) ? { missedVsyncs: 1 } : undefined));
      const seen = new Set(await posesShown(frames));
      const skippedInCapture = [...Array(60).keys()].filter((k) => !seen.has(k));
      dropRuns.push({ injected: at.size, droppedFrames: record.droppedFrames, skippedInCapture, skippedInRecord: (record.object!.skips ?? []).map((s) => s.refresh) });
    }
    return {
      refreshHz: 60,
      source: 'captured pixels (the virtual display); the page reports nothing used here but its record, compared',
      latency: {
        moves: LATENCY_MOVES,
        framesMedian: latencies.length ? quantile(latencies, 0.5) : null,
        framesMax: latencies.length ? Math.max(...latencies) : null,
        histogram: Object.fromEntries([...new Set(latencies)].sort((a, b) => a - b).map((n) => [n, latencies.filter((l) => l === n).length])),
        movesNeverDrawnWithinFrames: { frames: LATENCY_CAP, moves: unchanged },
        lostCaptures,
      },
      turntable: {
        clean: { presentations: CLEAN_PLAYS, exactToTheFrame: exact, percent: round((100 * exact) / CLEAN_PLAYS, 1), recordAgreesWithCapture: recordAgrees },
        withDrops: {
          presentations: DROP_PLAYS,
          everyDropRecorded: dropRuns.every((r) => r.droppedFrames === r.injected && r.skippedInCapture.length === r.injected && r.skippedInCapture.join() === [...r.skippedInRecord].sort((a, b) => a - b).join()),
          runs: dropRuns,
        },
      },
    };
  } finally {
    await display.close();
    await served.close();
  }
}

async function main(): Promise<void> {
  const started = new Date().toISOString();
  const load = os.loadavg().map((l) => round(l));
  const render = await renderCost();
  const virtual = gpu ? null : await onVirtualDisplay();
  const bundle = gpu ? null : await measureInitialJs(repoRoot);
  const threeInEager = bundle ? bundle.eagerFiles.some((f) => /THREE\.|GLTFLoader/.test(readFileSync(path.join(repoRoot, '.tmp/bench-timing-web', f.file), 'utf8'))) : null;
  const result = {
    bench: '3d',
    started,
    loadAverageAtStart: load,
    loadAverageAtEnd: os.loadavg().map((l) => round(l)),
    machine: gpu ? gpuMachine() : { cpus: os.cpus().length, model: os.cpus()[0]?.model },
    quick,
    render,
    virtualDisplay: virtual,
    bundle: bundle && { eagerGzipKB: bundle.eagerGzipKB, targetKB: bundle.targetKB, withinTarget: bundle.withinTarget, pixiInEagerChunks: bundle.pixiInEagerChunks, threeInEagerChunks: threeInEager },
  };
  const out = path.join(resultsDir(), gpu ? '3d-gpu.json' : '3d.json');
  writeBenchResult(out, result);
  console.log(JSON.stringify(result, null, 2));
  log(`written ${out}`);
}

await main();
