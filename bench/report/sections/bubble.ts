import { blocks, bullets, day, num, percent, table, times } from '../markdown.js';
import { resultDate, runLine, type Results, type Stamped } from '../results.js';
import type { BenchSection } from '../section.js';

interface Figures { frames: number; medianMs: number; p95Ms: number }
interface ToScreen { staticMs: Figures; movingMs: Figures; extraMs: number }
interface SweepRow {
  sigma: number;
  oursChangedRectMs: Figures;
  oursWholeMediaMs: Figures;
  oursBlurPassesMs: Figures;
  oursVideoFrameMs: number;
  pixiFilterMs: Figures;
  ratios: { imagePixiOverOursChangedRect: number; imagePixiOverOursWholeMedia: number; videoPixiOverOursVideoFrame: number };
}
interface SizeResult {
  size: string;
  sigma: number;
  radius: number;
  ours: { cost: Figures; toScreen: ToScreen };
  pixiFilter: { cost: Figures; toScreen: ToScreen };
  css: { toScreen: ToScreen };
  sigmas: { sigma: number; frame: Figures; videoFrameBlur: Figures }[];
  ratios: {
    pixiFilterOverOursCost: number;
    cssOverOursToScreen: number | null;
    pixiFilterOverOursToScreen: number | null;
    oursSigma32OverSigma4Frame: number;
    oursSigma32OverSigma4VideoBlur: number;
  };
  gpuSweep?: { image: string; radius: number; rows: SweepRow[] };
}
interface Latency { events: number; framesHistogram: Record<string, number>; firstFrameShare: number; error?: string }
interface Target {
  size: string;
  oursAtLeast5xCheaperThanPixiFilter: boolean;
  oursCheaperThanCss: boolean | null;
  sigma32Within10PercentOfSigma4: boolean;
}
interface BubbleResult extends Stamped {
  quick: boolean;
  machine: {
    cpus: number;
    renderer: string;
    gpu: boolean;
    browser?: string;
    graphicsFlags?: string[];
    gpuMachine?: { gpuModel?: string; driver?: string; os?: string } | null;
  };
  sizes: SizeResult[];
  latency: { ours: Latency; pixiFilter: Latency; css: Latency };
  targets: Target[];
}

/** bench/bubble/run.ts's NOISE_FLOOR_MS: a difference of composited-frame medians below it is noise. */
const NOISE_FLOOR_MS = 1;

const sizeName = (size: string) => size.replace('x', '×');
const ms = (value: number | null | undefined, digits = 2) => `${num(value, digits)} ms`;
const slashed = (values: readonly (number | null | undefined)[], digits = 2) => values.map((v) => num(v, digits)).join(' / ');

/** "0.1–0.11": the spread of a figure over several rows, one number when they agree. */
function range(values: readonly number[], digits = 2): string {
  const low = num(Math.min(...values), digits);
  const high = num(Math.max(...values), digits);
  return low === high ? low : `${low}–${high}`;
}

/**
 * The move-to-screen figure of a size holds only when PixiJS, which blurs the whole image again on every move,
 * measurably reached the screen later after a move than after a frame where nothing changed. When it did not (the
 * run left its ratio null), composited frames came back in an order the method cannot read.
 */
const toScreenUsable = (size: SizeResult) => size.ratios.pixiFilterOverOursToScreen !== null;

/** An extra below the noise floor is printed as noise, not as a cost (or a gain) the run cannot resolve. */
const extra = (value: number) => (value < NOISE_FLOOR_MS ? `< ${num(NOISE_FLOOR_MS)} (noise)` : num(value, 1));

function costTable(result: BubbleResult): string {
  const sigmas = (result.sizes[0]?.sigmas ?? []).map((s) => s.sigma);
  const sigmaLabel = `σ ${sigmas.join(' / ')}`;
  const showScreen = result.sizes.every(toScreenUsable);
  const headers = [
    'Size',
    '(a) ours',
    '(b) PixiJS',
    '(b)/(a)',
    ...(showScreen ? ['Move to screen, extra (a) / (b) / (c)', '(c)/(a) to screen'] : []),
    `(a) frame ${sigmaLabel}`,
    `(a) σ ${num(sigmas.at(-1))} / σ ${num(sigmas[0])}`,
    `Video-frame blur ${sigmaLabel}`,
  ];
  const rows = result.sizes.map((size) => [
    `${sizeName(size.size)} (radius ${num(size.radius)} px)`,
    ms(size.ours.cost.medianMs),
    ms(size.pixiFilter.cost.medianMs, 1),
    `**${times(size.ratios.pixiFilterOverOursCost, 0)}**`,
    ...(showScreen
      ? [
          `${[size.ours, size.pixiFilter, size.css].map((m) => extra(m.toScreen.extraMs)).join(' / ')} ms`,
          size.ratios.cssOverOursToScreen === null ? 'both under the noise floor' : times(size.ratios.cssOverOursToScreen, 1),
        ]
      : []),
    `${slashed(size.sigmas.map((s) => s.frame.medianMs))} ms`,
    num(size.ratios.oursSigma32OverSigma4Frame, 3),
    `${slashed(size.sigmas.map((s) => s.videoFrameBlur.medianMs), 1)} ms`,
  ]);
  // figures right, the size and the three methods' move-to-screen extras (with their noise notes) left
  return table(headers, rows, [1, 2, 3, ...(showScreen ? [5, 6, 7, 8] : [4, 5, 6])]);
}

/** Why the move-to-screen columns are left out, in the run's own figures (the first size where it failed). */
function toScreenNote(result: BubbleResult): string | undefined {
  const failed = result.sizes.find((size) => !toScreenUsable(size));
  if (!failed) return undefined;
  const ours = failed.ours.toScreen;
  const stillSlower =
    ours.staticMs.medianMs > ours.movingMs.medianMs
      ? 'a composited frame where nothing changed took longer to come back ' +
        `(${ms(ours.staticMs.medianMs, 1)} median for (a)) than one after a move (${ms(ours.movingMs.medianMs, 1)}), and `
      : '';
  return (
    `The move-to-screen figure does not work in this run: at ${sizeName(failed.size)} ${stillSlower}PixiJS's move, ` +
    'which blurs the whole image again, did not come back measurably later than a still frame. Those extras are ' +
    'left in the JSON and not used, nor is the "(a) cheaper than (c) to the screen" target that rests on them.'
  );
}

function sweepTable(result: BubbleResult): string | undefined {
  const rows = result.sizes.flatMap((size) =>
    (size.gpuSweep?.rows ?? []).map((row) => [
      sizeName(size.gpuSweep!.image),
      num(row.sigma),
      num(row.oursChangedRectMs.medianMs, 2),
      num(row.oursWholeMediaMs.medianMs, 2),
      num(row.oursBlurPassesMs.medianMs, 1),
      num(row.oursVideoFrameMs, 1),
      num(row.pixiFilterMs.medianMs, 1),
      `**${times(row.ratios.imagePixiOverOursChangedRect, 0)}**`,
      times(row.ratios.imagePixiOverOursWholeMedia, 1),
      times(row.ratios.videoPixiOverOursVideoFrame, 1),
    ]),
  );
  if (rows.length === 0) return undefined;
  return table(
    ['Size', 'σ', '(a) changed rect', '(a) whole media', '(a) blur passes (new video frame)', '(a) video frame = blur + whole', '(b) PixiJS', 'Image (b)/(a) rect', 'Image (b)/(a) whole', 'Video (b)/(a)'],
    rows,
    [1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
}

function latencyTable(result: BubbleResult): string {
  const methods: [string, Latency][] = [
    ['(a) ours', result.latency.ours],
    ['(b) PixiJS', result.latency.pixiFilter],
    ['(c) CSS', result.latency.css],
  ];
  const histogram = (latency: Latency) =>
    latency.error
      ? `failed: ${latency.error}`
      : Object.entries(latency.framesHistogram)
          .map(([frames, count]) => `${frames} frame${frames === '1' ? '' : 's'}: ${num(count)}`)
          .join(', ');
  return table(
    ['Method', 'Pointer events', 'Frames to the window, as recorded', 'Drawn in the next frame'],
    methods.map(([name, latency]) => [name, num(latency.events), histogram(latency), percent(latency.firstFrameShare, 0)]),
    [1, 3],
  );
}

function targetsTable(result: BubbleResult): string {
  const verdict = (flag: boolean | null | undefined) => (flag === null || flag === undefined ? 'undecided' : flag ? 'met' : 'not met');
  const rows = result.targets.map((target) => {
    const size = result.sizes.find((s) => s.size === target.size);
    const css = size && !toScreenUsable(size) ? 'not judged (move to screen not usable)' : verdict(target.oursCheaperThanCss);
    return [sizeName(target.size), verdict(target.oursAtLeast5xCheaperThanPixiFilter), css, verdict(target.sigma32Within10PercentOfSigma4)];
  });
  return table(['Size', '(a) at least 5× cheaper per frame than (b)', "(a)'s move reaches the screen cheaper than (c)'s", '(a) at σ 32 within 10 % of σ 4'], rows);
}

function gpuLine(result: BubbleResult): string {
  const machine = result.machine.gpuMachine;
  return (
    `${machine?.gpuModel ?? 'GPU'}, driver ${machine?.driver ?? '—'}, ${machine?.os ?? '—'}, ${num(result.machine.cpus)} CPU cores; ` +
    `Chromium ${result.machine.browser ?? '—'} headless shell, \`${(result.machine.graphicsFlags ?? []).join(' ')}\`, ` +
    `WebGL renderer \`${result.machine.renderer}\`.`
  );
}

function largestSweep(gpu: BubbleResult | undefined): { size: string; ours: string; pixi: string } | undefined {
  const size = gpu?.sizes.find((s) => s.gpuSweep && s.gpuSweep.rows.length > 0);
  if (!size?.gpuSweep) return undefined;
  return {
    size: sizeName(size.gpuSweep.image),
    ours: range(size.gpuSweep.rows.map((row) => row.oursChangedRectMs.medianMs)),
    pixi: range(size.gpuSweep.rows.map((row) => row.pixiFilterMs.medianMs), 1),
  };
}

export const bubbleSection: BenchSection = {
  title: 'bench:bubble',
  latest(results) {
    const bubble = results.get<BubbleResult>('bubble.json');
    const gpu = results.get<BubbleResult>('bubble-gpu.json');
    const files = ['bubble.json', 'bubble-gpu.json'];
    if (!bubble && !gpu) return { ran: 'not run', headline: '—', files };
    const ratios = (bubble?.sizes ?? []).map((s) => `**${times(s.ratios.pixiFilterOverOursCost, 0)}** at ${sizeName(s.size)}`);
    const sweep = largestSweep(gpu);
    const headline = [
      ratios.length > 0 && `ours against PixiJS \`BlurFilter\` + mask, per frame: ${ratios.join(', ')}`,
      sweep && `on the ${gpu?.machine.gpuMachine?.gpuModel ?? 'GPU'}, a pointer move at ${sweep.size} costs ${sweep.ours} ms, PixiJS ${sweep.pixi} ms`,
    ].filter((part): part is string => typeof part === 'string');
    const ran = [bubble && day(resultDate(bubble)), gpu && `GPU ${day(resultDate(gpu))}`].filter(Boolean).join('; ');
    return { ran, headline: headline.join('; '), files };
  },
  render(results: Results) {
    const bubble = results.get<BubbleResult>('bubble.json');
    const gpu = results.get<BubbleResult>('bubble-gpu.json');
    const frames = (result: BubbleResult | undefined) => num(result?.sizes[0]?.ours.cost.frames);
    return blocks(
      '**`npm run bench:bubble [-- --quick] [-- --gpu]`** (`bench/bubble/`, [its README](../bench/bubble/README.md)): ' +
        'the bubble stimulus (a sharp window following the pointer over a blurred image) per frame in headless ' +
        'Chromium, the same photo-like image and the same pointer path (a Lissajous figure over the middle of the ' +
        'media) for three implementations: (a) ours (the image blurred once; per frame one shader mixing the sharp ' +
        'image and its blurred copy, drawn only over the region the window move changed), (b) PixiJS `BlurFilter` on ' +
        'the image every frame under a sharp copy with a circular stencil mask, (c) CSS `filter: blur()` under a sharp ' +
        'copy whose `clip-path: circle()` moves.',
      bullets([
        "**Cost** ((a), (b)): one frame's work (pointer, uniforms, render) until a 1-pixel `readPixels` returns; " +
          'median over the path.',
        '**Move to screen** (all three; the only way to time CSS): on the node clock, a 1-pixel CDP screenshot (it ' +
          'waits for the next composited frame) after applying the next path point, alternating with the same for a ' +
          'frame where nothing changed; the extra is the difference of the two medians. Extras under ' +
          `${num(NOISE_FLOOR_MS)} ms are noise, and count as ${num(NOISE_FLOOR_MS)} ms in a ratio.`,
        "**(a) at two deviations**: the per-frame cost, in alternating blocks; and the two blur passes on one frame, " +
          'which each new video frame costs (an image pays them once).',
        '**Frames to the window**: frames between a real pointer event and the first frame that draws the window at ' +
          "its position (1 = the next frame), as recorded: for (a) by the stage's debug hook, for (b) and (c) by the " +
          "bench page's own `requestAnimationFrame` loop. The same window read from captured pixels is " +
          '[bench:display](#benchdisplay)\'s.',
      ]),
      '### SwiftShader',
      runLine('bubble.json', bubble),
      bubble &&
        blocks(
          `Renderer \`${bubble.machine.renderer}\`, ${num(bubble.machine.cpus)} cores${bubble.quick ? ', `--quick`' : ''}. ` +
            `Medians in ms per frame over ${frames(bubble)} frames, deviation σ ${num(bubble.sizes[0]?.sigma)} px for ` +
            '(a) and (b), window radius height / 8. SwiftShader times are CPU times: read the ratios.',
          costTable(bubble),
          toScreenNote(bubble),
          latencyTable(bubble),
          'Targets, per size:',
          targetsTable(bubble),
        ),
      '### GPU',
      runLine('bubble-gpu.json', gpu),
      gpu &&
        blocks(
          `${gpuLine(gpu)} ([How the browser gets there](#running-the-browser-benches-on-the-gpu-machine).) ` +
            `Medians in ms per frame over ${frames(gpu)} frames at σ ${num(gpu.sizes[0]?.sigma)} px:`,
          costTable(gpu),
          toScreenNote(gpu),
          '`--gpu` also sweeps the deviation on an image made at each size\'s own resolution, (b) at the same σ in the ' +
            "same run. (a)'s changed-rectangle and whole-media columns time blocks of 10 frames, the others single " +
            "frames, whose resolution is Chromium's 0.1 ms `performance.now()`. A video frame of (a) is the sum of two " +
            'measured figures (blur passes and a whole-media frame), not one timed frame. Medians in ms:',
          sweepTable(gpu),
          latencyTable(gpu),
          'Targets, per size:',
          targetsTable(gpu),
        ),
    );
  },
};
