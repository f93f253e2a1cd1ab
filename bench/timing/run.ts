/**
 * `npm run bench:timing [-- --quick]`: presentation timing of the real Stage in headless Chromium (SwiftShader),
 * against a setTimeout-timed DOM baseline (jsPsych style) in the same page and the same run, plus long-task
 * detection and the initial JS size of the app. Writes bench/results/timing.json and prints a markdown table.
 * Default: 200 presentations per condition (about 10 minutes); --quick: 20; --presentations=N: N. --gpu: on the
 * machine's GPU (GLIMPSE_GPU_FLAGS), refused on a software renderer, written to timing-gpu.json. Also what goes over
 * the wire before a participant's first screen, compressed and not (transfer.ts); --transfer-only measures that
 * alone (the build and the transfer) into bench/results/transfer.json.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { baselineFigures, longTaskFigures, round, stageFigures } from './analysis';
import type { ConditionFigures } from './analysis';
import { gpuMachine, isSoftwareRenderer, openBenchPage, resultsDir, webglRenderer } from './benchPage';
import { benchWebDir, measureInitialJs, notMeasured } from './bundleSize';
import { measureTransfer, type TransferFigures } from './transfer';
import type { LongTaskPlan } from './conditions';
import { runVideoBench, videoMarkdown } from './videoBench';
import { writeBenchResult } from '../shared/run-stamp';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const quick = process.argv.includes('--quick');
/** --gpu: Chromium on the machine's GPU (scripts/gpu/run-on-gpu.sh); writes timing-gpu.json. */
const gpu = process.argv.includes('--gpu');
/** Only the video section (frame-coded clips, stage vs plain element): bench/results/timing-video.json. */
const videoOnly = process.argv.includes('--video');
/**
 * --video-upload=frames: the stage-clock clips upload each VideoFrame itself (the fallback, the browser converting
 * on the main thread) instead of RGBA bytes copied ahead; written to timing-video-frames.json, for comparison.
 */
const framesUpload = process.argv.includes('--video-upload=frames');
const VIDEO_PLAYS = quick ? 5 : 20;
/** --presentations=N overrides the count per condition (the GPU run uses a middle count to fit its lease). */
const presentationsArg = process.argv.find((a) => a.startsWith('--presentations='));
const PRESENTATIONS = presentationsArg ? Number(presentationsArg.split('=')[1]) : quick ? 20 : 200;
const LONG_TASK_PRESENTATIONS = quick ? 12 : 40;
const DURATIONS_MS = [1000, 500];
const LONG_TASK_MS = [50, 70, 90, 120];
const IMAGE = { width: 320, height: 180 };

async function main(): Promise<void> {
  const started = Date.now();
  // The machine may be shared: the load says how much the figures are disturbed by other work.
  const loadAtStart = os.loadavg().map((l) => round(l, 2));
  const log = (message: string) => console.error(`[bench:timing ${((Date.now() - started) / 1000).toFixed(0)} s] ${message}`);

  if (videoOnly) return runVideoOnly(log, loadAtStart, started);
  // Pages built ahead (the GPU machine) come without the app's sources and Vite: the JS size and the transfer are
  // CPU-machine figures.
  const prebuilt = Boolean(process.env.GLIMPSE_BENCH_PREBUILT);
  log('building the app to measure its initial JS');
  const bundle = prebuilt ? notMeasured('pages built ahead: no app build here (see bench/results/timing.json)') : await measureInitialJs(repoRoot);
  const transfer = prebuilt ? null : await measureTransfer(repoRoot, benchWebDir(repoRoot));
  if (transfer) log(transferLine(transfer));
  if (process.argv.includes('--transfer-only')) {
    const only = { date: new Date().toISOString(), loadAverageAtStart: loadAtStart, initialJs: bundle, transfer };
    writeBenchResult(path.join(repoRoot, 'bench/results/transfer.json'), only);
    if (transfer) console.log(transferLine(transfer));
    return;
  }

  log('building and opening the bench page');
  const bench = await openBenchPage({ gpu });
  const { page } = bench;
  page.on('pageerror', (error) => log(`page error: ${error.message}`));
  try {
    const renderer = await webglRenderer(page);
    log(`renderer: ${renderer} (flags ${bench.graphicsArgs.join(' ')})`);
    if (gpu && isSoftwareRenderer(renderer)) {
      console.error(`bench:timing --gpu: the WebGL renderer is "${renderer}", not a GPU; no GPU figures written.`);
      process.exitCode = 2;
      return;
    }
    const { refreshMs, size } = await page.evaluate(() => window.__bench.ready());
    log(`stage ready: refresh ${refreshMs.toFixed(2)} ms, canvas ${size.width}x${size.height}`);
    const names = await page.evaluate(([n, w, h]) => window.__bench.makeImages(n, w, h, 'img'), [PRESENTATIONS, IMAGE.width, IMAGE.height]);

    const conditions: ConditionFigures[] = [];
    for (const ms of DURATIONS_MS) {
      log(`stage: ${names.length} x ${ms} ms`);
      const stage = await page.evaluate(([list, d]) => window.__bench.runStage(list, d, []), [names, ms] as const);
      conditions.push(stageFigures(stage.records, ms, refreshMs));
      log(`baseline: ${names.length} x ${ms} ms`);
      const baseline = await page.evaluate(([list, d]) => window.__bench.runBaseline(list, d), [names, ms] as const);
      conditions.push(baselineFigures(baseline, ms, refreshMs));
    }

    const longMs = 500;
    const plans: LongTaskPlan[] = [];
    for (let i = 1; i < LONG_TASK_PRESENTATIONS - 1; i += 2) {
      plans.push({ index: i, offsetMs: 200, busyMs: LONG_TASK_MS[plans.length % LONG_TASK_MS.length] });
    }
    log(`long tasks: ${plans.length} busy loops during ${LONG_TASK_PRESENTATIONS} x ${longMs} ms`);
    const longRun = await page.evaluate(([list, d, p]) => window.__bench.runStage(list, d, p), [names.slice(0, LONG_TASK_PRESENTATIONS), longMs, plans] as const);
    const longTasks = longTaskFigures(longRun.records, longRun.longTasks);
    const longTaskStage = stageFigures(longRun.records, longMs, refreshMs);
    const video = await runVideoBench(page, repoRoot, VIDEO_PLAYS, log);

    const ratios = DURATIONS_MS.map((ms) => {
      const stage = conditions.find((c) => c.requestedMs === ms && c.method.startsWith('stage'));
      const baseline = conditions.find((c) => c.requestedMs === ms && c.method.startsWith('baseline'));
      if (!stage || !baseline) throw new Error('missing condition');
      const meanAbsFrameError = (c: ConditionFigures) =>
        Object.entries(c.frameErrorHistogram).reduce((a, [k, n]) => a + Math.abs(Number(k)) * n, 0) / c.presentations;
      // Logged against logged: each method's own stamps (both as recorded). No "shown SD baseline/stage": the stage's
      // shown durations are its record (as recorded, equal to its logged ones), the baseline's a watcher's
      // measurement, and a ratio of the two would divide a measurement by a self-report.
      return {
        requestedMs: ms,
        loggedSdBaselineOverStage: round(baseline.loggedDurationMs.sd / stage.loggedDurationMs.sd, 2),
        exactFrameShareStage: stage.exactFrameShare,
        exactFrameShareBaseline: baseline.exactFrameShare,
        meanAbsFrameErrorStage: round(meanAbsFrameError(stage)),
        meanAbsFrameErrorBaseline: round(meanAbsFrameError(baseline)),
      };
    });

    const result = {
      bench: 'timing',
      date: new Date().toISOString(),
      quick,
      environment: {
        browser: bench.browser.version(),
        flags: [...bench.graphicsArgs, '--no-sandbox', 'headless'],
        renderer,
        gpu,
        gpuMachine: gpuMachine(),
        cpus: os.cpus().length,
        loadAverageAtStart: loadAtStart,
        loadAverageAtEnd: os.loadavg().map((l) => round(l, 2)),
        canvas: size,
        image: IMAGE,
        measuredRefreshMs: round(refreshMs),
        measuredRefreshHz: round(1000 / refreshMs, 2),
      },
      conditions,
      baselineRatios: ratios,
      longTasks: { presentations: LONG_TASK_PRESENTATIONS, requestedMs: longMs, ...longTasks, stage: longTaskStage },
      initialJs: bundle,
      transfer,
      video,
      runtimeS: Math.round((Date.now() - started) / 1000),
    };
    const file = path.join(resultsDir(), gpu ? 'timing-gpu.json' : 'timing.json');
    writeBenchResult(file, result);
    console.log(markdown(result));
    console.log(`\n${videoMarkdown(video)}`);
    log(`wrote ${file}`);
  } finally {
    await bench.close();
  }
}

async function runVideoOnly(log: (m: string) => void, loadAtStart: number[], started: number): Promise<void> {
  log('building and opening the bench page');
  const bench = await openBenchPage();
  try {
    if (framesUpload) await bench.page.goto(`${bench.url}?video=frames`);
    const { refreshMs } = await bench.page.evaluate(() => window.__bench.ready());
    const video = await runVideoBench(bench.page, repoRoot, VIDEO_PLAYS, log);
    const result = {
      bench: 'timing-video',
      date: new Date().toISOString(),
      quick,
      environment: {
        browser: bench.browser.version(),
        cpus: os.cpus().length,
        loadAverageAtStart: loadAtStart,
        loadAverageAtEnd: os.loadavg().map((l) => round(l, 2)),
        measuredRefreshMs: round(refreshMs),
      },
      video,
      runtimeS: Math.round((Date.now() - started) / 1000),
    };
    const file = framesUpload ? 'timing-video-frames.json' : 'timing-video.json';
    writeBenchResult(path.join(repoRoot, 'bench/results', file), result);
    console.log(`load average ${loadAtStart[0]} at start, ${result.environment.loadAverageAtEnd[0]} at end; refresh ${round(refreshMs)} ms\n`);
    console.log(videoMarkdown(video));
    log(`wrote bench/results/${file}`);
  } finally {
    await bench.close();
  }
}

function markdown(r: {
  environment: { browser: string; renderer: string; measuredRefreshMs: number; measuredRefreshHz: number; cpus: number; loadAverageAtStart: number[]; loadAverageAtEnd: number[] };
  conditions: ConditionFigures[];
  baselineRatios: Array<Record<string, number>>;
  longTasks: { injected: number; detected: number; stage: ConditionFigures; tasks: Array<{ busyMs: number; endMs: number; startMs: number; detected: boolean; dropIntervalMs: number | null }> };
  initialJs: Awaited<ReturnType<typeof measureInitialJs>>;
  transfer: TransferFigures | null;
}): string {
  const s = (x: { mean: number; sd: number; min: number; max: number }) => `${x.mean} / ${x.sd} / ${x.min} / ${x.max}`;
  const hist = (h: Record<string, number>) => Object.entries(h).map(([k, v]) => `${k}: ${v}`).join(', ');
  const lines = [
    `Headless Chromium ${r.environment.browser}, ${r.environment.renderer}, ${r.environment.cpus} CPUs (load average ${r.environment.loadAverageAtStart[0]} at start, ${r.environment.loadAverageAtEnd[0]} at end); measured refresh ${r.environment.measuredRefreshMs} ms (${r.environment.measuredRefreshHz} Hz).`,
    '',
    '| method | requested | n | shown frames from | shown frames mean / SD / min / max | shown - requested frames | exact | exact, presentations without a dropped frame | logged duration ms mean / SD / min / max (each as recorded) | logged error ms mean | dropped frames |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...[...r.conditions, r.longTasks.stage].map(
      (c, i) =>
        `| ${c.method}${i === r.conditions.length ? ' + long tasks' : ''} | ${c.requestedMs} ms = ${c.requestedFrames} frames | ${c.presentations} | ${c.shownFrom} | ${s(c.shownFrames)} | ${hist(c.frameErrorHistogram)} | ${(c.exactFrameShare * 100).toFixed(1)}% | ${(c.exactFrameShareWithoutDrops * 100).toFixed(1)}% of ${c.presentationsWithoutDrops} | ${s(c.loggedDurationMs)} | ${c.loggedErrorMs.mean} | ${c.droppedFrames} |`,
    ),
    '',
    'Shown frames "as recorded" are the stage\'s own record, not a measurement of it (bench:display captures the pixels); the baseline\'s come from a rAF watcher in the page.',
    '',
    '| requested | logged SD baseline/stage (each as recorded) | exact frames stage (as recorded) | exact frames baseline (rAF watcher) | mean abs frame error stage (as recorded) | baseline (rAF watcher) |',
    '|---|---|---|---|---|---|',
    ...r.baselineRatios.map(
      (x) =>
        `| ${x.requestedMs} ms | ${x.loggedSdBaselineOverStage} | ${(x.exactFrameShareStage * 100).toFixed(1)}% | ${(x.exactFrameShareBaseline * 100).toFixed(1)}% | ${x.meanAbsFrameErrorStage} | ${x.meanAbsFrameErrorBaseline} |`,
    ),
    '',
    `Long tasks injected: ${r.longTasks.injected}, detected as dropped frames: ${r.longTasks.detected} (${r.longTasks.tasks.map((t) => `${t.busyMs} ms→${t.detected ? `${t.dropIntervalMs} ms gap` : 'MISSED'}`).join(', ')}).`,
    '',
    r.initialJs.ok
      ? `Initial JS (gzip -9, eager scripts of index.html): ${r.initialJs.eagerGzipKB} KB (target < ${r.initialJs.targetKB} KB: ${r.initialJs.withinTarget ? 'met' : 'NOT met'}); PixiJS in eager chunks: ${r.initialJs.pixiInEagerChunks ? 'YES' : 'no'} (Pixi in ${r.initialJs.pixiChunks.join(', ') || 'no chunk'}); all JS ${r.initialJs.totalJsGzipKB} KB.`
      : `Initial JS: not measured: ${r.initialJs.error}`,
    '',
    r.transfer ? transferLine(r.transfer) : 'Transfer before the first screen: not measured here.',
  ];
  return lines.join('\n');
}

function transferLine(t: TransferFigures): string {
  if (!t.ok) return `Transferred before the first screen: not measured (${t.error}).`;
  const enc = (e: Record<string, number>) => Object.entries(e).map(([k, v]) => `${k} ${v}`).join(', ');
  return `Transferred before the first screen (${t.page}, empty cache, headers included): ${t.compressed.kb} KB in ${t.compressed.requests} responses (${enc(t.compressed.encodings)}), against ${t.plain.kb} KB served plain (${enc(t.plain.encodings)}) in the same run: ${(t.ratio * 100).toFixed(1)}%.`;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
