import { blocks, bullets, day, num, percent, table, yesNo } from '../markdown.js';
import { resultDate, runLine, type Results, type Stamped } from '../results.js';
import type { BenchSection } from '../section.js';
import type { VideoCondition } from '../../timing/videoBench.js';

/** The fields of bench/timing's results read here (bench/timing/analysis.ts, videoBench.ts, transfer.ts). */
interface Condition {
  method: string;
  requestedMs: number; requestedFrames: number; presentations: number;
  /** Absent in results written before it existed: then the method says it (see `shownFrom` below). */
  shownFrom?: 'as recorded' | 'rAF watcher';
  frameErrorHistogram: Record<string, number>; exactFrameShare: number;
  presentationsWithoutDrops: number; exactFrameShareWithoutDrops: number;
  loggedDurationMs: { mean: number; sd: number }; droppedFrames: number;
}
interface Environment {
  browser: string;
  cpus: number;
  measuredRefreshMs: number; measuredRefreshHz?: number;
  loadAverageAtStart: number[]; loadAverageAtEnd?: number[];
  /** A GPU run records its renderer and machine; the SwiftShader run of 2026-11-24, its flags only. */
  renderer?: string; gpuMachine?: { gpuModel?: string; driver?: string; os?: string }; flags?: string[];
  canvas?: { width: number; height: number }; image?: { width: number; height: number };
}
type LongTasks = { presentations: number; requestedMs: number; injected: number; detected: number; tasks: { offsetMs: number; busyMs: number }[]; stage: Condition };
type InitialJs = { ok: boolean; error?: string; eagerGzipKB: number; targetKB: number; withinTarget: boolean; pixiInEagerChunks: boolean; totalJsGzipKB: number };
type Load = { bytes: number; kb: number; requests: number; encodings: Record<string, number> };
type Transfer = { ok: boolean; error?: string; page: string; compressed: Load; plain: Load; ratio: number };
type Video = { conditions: VideoCondition[] };
type BaselineRatio = { requestedMs: number; loggedSdBaselineOverStage: number; meanAbsFrameErrorStage: number; meanAbsFrameErrorBaseline: number };
interface TimingResult extends Stamped {
  quick?: boolean;
  environment: Environment;
  conditions: Condition[];
  baselineRatios: BaselineRatio[];
  longTasks: LongTasks;
  initialJs: InitialJs;
  /** A full run writes these here; a partial run, transfer.json or timing-video.json. */
  transfer?: Transfer | null;
  video?: Video;
}
type TransferResult = Stamped & { initialJs: InitialJs; transfer: Transfer | null };
type VideoResult = Stamped & { quick?: boolean; environment: Environment; video: Video };

/** A figure a full run writes into timing.json and a partial run into its own file: the newer one is shown. */
type Source<T> = { file: string; result: Stamped; value: T };
function newest<T>(candidates: { file: string; result: Stamped | undefined; value: T | null | undefined }[]): Source<T> | undefined {
  const present = candidates.filter((c): c is Source<T> => c.result !== undefined && c.value !== undefined && c.value !== null);
  return present.sort((a, b) => (resultDate(b.result) ?? '').localeCompare(resultDate(a.result) ?? ''))[0];
}

const isStage = (condition: { method: string }) => condition.method.startsWith('stage');
// Results written before `shownFrom` took the stage's shown frames from its record and the baseline's from the watcher.
const shownFrom = (c: Condition) => c.shownFrom ?? (isStage(c) ? 'as recorded' : 'rAF watcher');
const methodName = (c: Condition) => (isStage(c) ? 'stage (rAF frame clock)' : 'baseline (`setTimeout`, DOM `<img>`)');
const histogram = (counts: Record<string, number>) => Object.entries(counts).map(([key, n]) => `${key}: ${num(n)}`).join(', ');
const size = (text: string) => text.replace('x', '×');
/** Figures of several conditions, said once when they are the same. */
const joined = (texts: string[]) => (new Set(texts).size === 1 ? texts[0]! : texts.join(' / '));
const loadLine = (env: Environment) => `load average (the bench's own record) ${num(env.loadAverageAtStart[0], 2)} → ${num(env.loadAverageAtEnd?.[0], 2)}`;

function conditionTable(result: TimingResult): string {
  const rows = [...result.conditions, result.longTasks.stage].map((c, i) => {
    const method = i === result.conditions.length ? `${methodName(c)}, long tasks injected` : methodName(c);
    const exact = isStage(c) ? `**${percent(c.exactFrameShare)}**` : percent(c.exactFrameShare);
    const logged = `${num(c.loggedDurationMs.mean, 2)} / ${num(c.loggedDurationMs.sd, 3)} ms`;
    const requested = `${num(c.requestedMs)} ms = ${num(c.requestedFrames)} frames`;
    const withoutDrops = `${percent(c.exactFrameShareWithoutDrops)} of ${num(c.presentationsWithoutDrops)}`;
    return [method, requested, num(c.presentations), shownFrom(c), exact, withoutDrops, histogram(c.frameErrorHistogram), logged, num(c.droppedFrames)];
  });
  const headers = ['Method', 'Requested', 'Presentations', 'Shown frames from', 'Exact to the frame', 'Exact, no dropped frame'];
  return table([...headers, 'Shown − requested frames', 'Logged duration mean / SD (own stamps)', 'Dropped frames'], rows, [2, 4, 5, 7, 8]);
}

function comparisons(result: TimingResult): string {
  const long = result.longTasks;
  const busy = long.tasks.map((t) => t.busyMs);
  return bullets([
    ...result.baselineRatios.map(
      (r) =>
        `At ${num(r.requestedMs)} ms: mean |shown − requested| ${num(r.meanAbsFrameErrorStage, 3)} frames for the stage (as recorded) ` +
        `against ${num(r.meanAbsFrameErrorBaseline, 3)} for the baseline (rAF watcher); SD of the logged durations, each method's own ` +
        `stamps, baseline / stage: × ${num(r.loggedSdBaselineOverStage, 2)}.`,
    ),
    // the stage's own count of presentations: a run with fewer images than planned (the GPU's) played only those
    `Long tasks: ${num(long.injected)} busy loops of ${num(Math.min(...busy))}–${num(Math.max(...busy))} ms, ` +
      `${num(long.tasks[0]?.offsetMs)} ms into every other of ${num(long.stage.presentations)} presentations of ${num(long.requestedMs)} ms; ` +
      `**${num(long.detected)} of ${num(long.injected)}** found as a dropped frame in the stage's record overlapping the loop ` +
      `(every loop detected: ${yesNo(long.detected === long.injected)}).`,
  ]);
}

function environmentLine(result: TimingResult): string {
  const env = result.environment;
  const graphics = env.renderer ? `WebGL renderer \`${env.renderer}\`` : `flags \`${(env.flags ?? []).join(' ')}\``;
  const sizes = env.image && env.canvas ? `, ${num(env.image.width)}×${num(env.image.height)} images on a ${num(env.canvas.width)}×${num(env.canvas.height)} stage` : '';
  return (
    `Headless Chromium ${env.browser}, ${graphics}, ${num(env.cpus)} CPU cores${result.quick ? ' (`--quick`)' : ''}${sizes}; ` +
    `measured refresh ${num(env.measuredRefreshMs, 3)} ms (${num(env.measuredRefreshHz, 2)} Hz); ${loadLine(env)}.`
  );
}

function initialJsTable(sources: Source<InitialJs>[]): string {
  const rows = sources.map(({ file, result, value: js }) => [`\`${file}\``, day(resultDate(result)), `**${num(js.eagerGzipKB, 1)} KB**`,
    `< ${num(js.targetKB)} KB`, yesNo(js.withinTarget), yesNo(js.pixiInEagerChunks), `${num(js.totalJsGzipKB, 1)} KB`]);
  return table(['Result file', 'Built', 'Initial JavaScript (gzip)', 'Target', 'Met', 'PixiJS in an eager chunk', 'All JavaScript (gzip)'], rows, [2, 6]);
}

function transferTable(t: Transfer): string {
  const encodings = (e: Record<string, number>) => Object.entries(e).map(([name, n]) => `${name} ${num(n)}`).join(', ');
  const row = (served: string, load: Load, kb: string) => [served, kb, num(load.bytes), num(load.requests), encodings(load.encodings)];
  return blocks(
    table(
      ['Served', 'Transferred', 'Bytes', 'Responses', 'Encodings'],
      [row("with the build's compressed copies", t.compressed, `**${num(t.compressed.kb, 1)} KB**`), row('plain (the baseline, same run)', t.plain, `${num(t.plain.kb, 1)} KB`)],
      [1, 2, 3],
    ),
    `Compressed / plain: **${percent(t.ratio)}** (page \`${t.page}\`).`,
  );
}

function videoTable(video: Video): string {
  const rows = video.conditions.map((c) => {
    const stage = c.method === 'stage';
    const method = stage ? `stage, \`${c.upload ?? 'unknown'}\` upload (a watcher reads the canvas)` : 'plain `<video>` (its own account)';
    const skipped = stage ? `**${num(c.skippedPerPlay, 2)}**` : num(c.skippedPerPlay, 2);
    const stageOnly = stage ? [percent(c.recordMatchesWatcherShare, 0), percent(c.lastFrameExactShare, 0)] : ['', ''];
    // Plays the stage ended because it could not draw them as timed are not in the figures: said beside the count.
    const plays = c.interruptedPlays ? `${num(c.plays)} (+ ${num(c.interruptedPlays)} interrupted: ${(c.interruptedBy ?? []).join(', ')})` : num(c.plays);
    return [size(c.size), method, plays, skipped, percent(c.exactCadenceShare, 0), histogram(c.refreshesHistogram), ...stageOnly];
  });
  const headers = ['Clip', 'Method', 'Plays', 'Skipped frames per play', 'Exact cadence (plays)', 'Refreshes per frame (frames 0…N−2): count'];
  return table([...headers, 'Stage record = watcher', 'Last frame exactly 2 refreshes'], rows, [2, 3, 4, 6, 7]);
}

/** The issue's target, per clip size: fewer clip frames skipped than the element (or none), an exact cadence as often. */
function videoTarget(video: Video): string {
  const verdicts = [...new Set(video.conditions.map((c) => c.size))].map((clip) => {
    const stage = video.conditions.find((c) => c.size === clip && c.method === 'stage');
    const element = video.conditions.find((c) => c.size === clip && c.method === 'element');
    // An interrupted play showed the participant nothing as timed: the target is not met while any is.
    const fewer = stage !== undefined && element !== undefined && !stage.interruptedPlays && (stage.skippedTotal === 0 || stage.skippedTotal < element.skippedTotal);
    return `${size(clip)} **${fewer && stage.exactCadenceShare >= element.exactCadenceShare ? 'met' : 'not met'}**`;
  });
  return `Target: the stage skips fewer clip frames than the element (or none) and plays an exact cadence at least as often: ${verdicts.join(', ')}.`;
}

function videoBlock(source: Source<Video> | undefined): string {
  // a full run's timing.json and a --video run's file both hold the page's environment
  const result = source?.result as { environment?: Environment; quick?: boolean } | undefined;
  const env = result?.environment;
  return blocks(
    VIDEO,
    source ? runLine(source.file, source.result) : '`timing-video.json`: not run on this checkout.',
    env && `Headless Chromium ${env.browser}, ${num(env.cpus)} CPU cores${result?.quick ? ' (`--quick`)' : ''}; measured refresh ${num(env.measuredRefreshMs, 3)} ms; ${loadLine(env)}.`,
    source && videoTable(source.value),
    source && videoTarget(source.value),
  );
}

const METHOD =
  '**`npm run bench:timing [-- --quick]`** (`bench/timing/`, [its README](../bench/timing/README.md)): images through the real Stage in ' +
  'headless Chromium (SwiftShader), against a jsPsych-style baseline in the same page and the same run: the same images swapped in the DOM ' +
  "(`<img>`, decoded ahead) and ended with `setTimeout`. The stage's shown frames and durations are its own record, taken on flip (**as " +
  'recorded**: its shown durations are its logged ones), not a measurement of it; its shown frames measured from captured pixels are ' +
  "[bench:display](#benchdisplay). The baseline's shown frames come from a passive `requestAnimationFrame` watcher that notes the first " +
  'frame each image was in. "Shown" means frame timestamps, not photons: headless Chromium drives `requestAnimationFrame` from a ' +
  "synthetic clock, and the measured refresh is that clock's period. On a busy machine a late frame is a real dropped frame, in both " +
  'methods. Long tasks: busy loops injected into every other presentation of a stage run; a loop counts as detected when a dropped-frame ' +
  "interval in the stage's record overlaps it.";

const TRANSFER =
  '**`npm run bench:timing`**, also alone with `-- --transfer-only` (`bench/timing/transfer.ts`): the built app served by the real ' +
  "server, a participant link opened in Chromium with an empty cache, every response's bytes as transferred (DevTools " +
  '`encodedDataLength`, headers included) summed until the eligibility check shows; the same build served plain in the same run is the ' +
  'baseline. Initial JavaScript (`bench/timing/bundleSize.ts`): the gzip (-9) sizes of the scripts `index.html` loads eagerly (module ' +
  'script and `modulepreload`), and whether an eager chunk holds PixiJS (it must only be in lazy chunks).';

const SERVING =
  '**Serving.** The build writes a brotli and a gzip copy beside each larger text file (`scripts/vite-precompress.ts`, no work per request); ' +
  '`@fastify/static` (`preCompressed`) sends the copy the browser accepts, the plain file otherwise, with `Vary: Accept-Encoding`. Hashed ' +
  'files under `/assets/` are `immutable`; everything else (index.html, its meta tags injected) is `no-cache` ' +
  '(`tests/server/static-compression.test.ts`).';

const VIDEO =
  '**`npm run bench:timing -- --video [--quick]`** (also part of the full run; `bench/timing/videoBench.ts`): frame-coded clips (30 fps, ' +
  "2 s, H.264), played in one page on headless Chromium's real-time clock, the stage and a plain `<video>` element interleaved play by " +
  "play. The stage is measured by a watcher that reads its canvas in every clock frame (the clip's middle row in one `readPixels`, the " +
  "frame's index decoded from 8 black and white blocks), independently of the stage's record; the element by its own account " +
  '(`requestVideoFrameCallback`), so a frame it gives no callback for counts as skipped. An exact cadence is frames 0…N−2 each on for ' +
  'exactly 2 refreshes, none skipped. `--video-upload=frames` runs the stage with the `VideoFrame` upload into ' +
  '`timing-video-frames.json`, to compare the two upload paths on one machine.';

const VIDEO_ON_DISPLAY =
  '**Video on the virtual display** is a test, not a benchmark, and writes no result file: `src/web/stage/video.display.test.ts` plays ' +
  'frame-coded clips at several frame rates on several refresh rates of the virtual display (`testkit/virtualDisplay.ts`), captures ' +
  'every display frame and reads the clip frame from its pixels. It checks that every clip frame is on screen for exactly its ' +
  "refreshes, none skipped, and that the stage's record (drawn, skipped and repeated frames, first and last frame, onset and offset) " +
  'equals the capture, also with missed vsyncs injected, where the record names each skipped and repeated frame ' +
  '([Video, frame-exact](timing.md#video-frame-exact)).';

const GPU =
  "`npm run bench:timing -- --gpu` (`scripts/gpu/run-on-gpu.sh bench`): the same images, baseline and long tasks on the GPU machine's " +
  "Chromium, refused on a software renderer. The stage's figures are again as recorded, the baseline's by the rAF watcher.";

/** Every file of the section, read once for the table's line and the body alike. */
function read(results: Results) {
  const timing = results.get<TimingResult>('timing.json');
  const transferFile = results.get<TransferResult>('transfer.json');
  const videoFile = results.get<VideoResult>('timing-video.json');
  const js: Source<InitialJs>[] = [];
  if (timing?.initialJs.ok) js.push({ file: 'timing.json', result: timing, value: timing.initialJs });
  if (transferFile?.initialJs.ok) js.push({ file: 'transfer.json', result: transferFile, value: transferFile.initialJs });
  const transfer = newest([{ file: 'timing.json', result: timing, value: timing?.transfer }, { file: 'transfer.json', result: transferFile, value: transferFile?.transfer }]);
  const video = newest([{ file: 'timing.json', result: timing, value: timing?.video }, { file: 'timing-video.json', result: videoFile, value: videoFile?.video }]);
  const framesFile = results.get<VideoResult>('timing-video-frames.json');
  return { timing, transferFile, videoFile, framesFile, gpu: results.get<TimingResult>('timing-gpu.json'), js, transfer, video };
}

export const timingSection: BenchSection = {
  title: 'bench:timing',
  latest(results) {
    const { timing, transferFile, videoFile, framesFile, gpu, js, transfer, video } = read(results);
    const files = ['timing.json', 'transfer.json', 'timing-video.json', 'timing-gpu.json', ...(framesFile ? ['timing-video-frames.json'] : [])];
    if (!timing && !transferFile && !videoFile && !gpu) return { ran: 'not run', headline: '—', files };
    const stage = timing?.conditions.filter(isStage) ?? [];
    const baseline = timing?.conditions.filter((c) => !isStage(c)) ?? [];
    const initialJs = newest(js)?.value;
    const clips = (method: string) => video?.value.conditions.filter((c) => c.method === method) ?? [];
    const headline = [
      timing &&
        `images **${joined(stage.map((c) => percent(c.exactFrameShare)))}** exact to the frame at ${stage.map((c) => num(c.requestedMs)).join(' / ')} ms ` +
          `as recorded by the stage (a \`setTimeout\` baseline ${joined(baseline.map((c) => percent(c.exactFrameShare)))} by a rAF watcher; pixels: bench:display)`,
      transfer?.value.ok &&
        `**${num(transfer.value.compressed.kb, 1)} KB** before the first screen (${percent(transfer.value.ratio)} of plain)` +
          (initialJs ? `, initial JavaScript ${num(initialJs.eagerGzipKB, 1)} KB gzip` : ''),
      !transfer?.value.ok && initialJs && `initial JavaScript ${num(initialJs.eagerGzipKB, 1)} KB gzip`,
      video &&
        `30 fps clips: **${joined(clips('stage').map((c) => num(c.skippedPerPlay, 2)))}** skipped frames per play ` +
          `(${clips('stage').map((c) => size(c.size)).join(' / ')}, by a watcher) against ${joined(clips('element').map((c) => num(c.skippedPerPlay, 2)))} ` +
          'for a `<video>` element (its own account)',
    ];
    const ran = [
      timing && day(resultDate(timing)),
      // the dates of the figures shown: a partial run's file only where it is newer than the full run's
      transfer && transfer.file !== 'timing.json' && `transfer ${day(resultDate(transfer.result))}`,
      video && video.file !== 'timing.json' && `video ${day(resultDate(video.result))}`,
      gpu && `GPU ${day(resultDate(gpu))}`,
    ];
    return { ran: ran.filter(Boolean).join('; '), headline: headline.filter(Boolean).join('; ') || '—', files };
  },
  render(results: Results) {
    const { timing, framesFile, gpu, js, transfer, video } = read(results);
    const machine = gpu?.environment.gpuMachine;
    return blocks(
      METHOD,
      runLine('timing.json', timing),
      timing && blocks(environmentLine(timing), conditionTable(timing), comparisons(timing)),
      '### Bytes before the first screen',
      TRANSFER,
      transfer ? runLine(transfer.file, transfer.result) : '`transfer.json`: not run on this checkout.',
      transfer && (transfer.value.ok ? transferTable(transfer.value) : `Not measured: ${transfer.value.error ?? 'no reason recorded'}.`),
      js.length > 0 && initialJsTable(js),
      SERVING,
      '### Video: bench:timing -- --video',
      videoBlock(video),
      framesFile && blocks('With the `VideoFrame` upload (`--video-upload=frames`):', runLine('timing-video-frames.json', framesFile), videoTable(framesFile.video)),
      '### Video on the virtual display',
      VIDEO_ON_DISPLAY,
      '### Images on the GPU',
      GPU,
      runLine('timing-gpu.json', gpu),
      gpu &&
        blocks(
          `${machine?.gpuModel ?? 'GPU'}, driver ${machine?.driver ?? '—'}, ${machine?.os ?? 'OS not recorded'}. ${environmentLine(gpu)}`,
          conditionTable(gpu),
          comparisons(gpu),
          !gpu.initialJs.ok && `Initial JavaScript not measured there: ${gpu.initialJs.error ?? 'no reason recorded'}.`,
        ),
    );
  },
};
