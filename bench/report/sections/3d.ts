import { blocks, day, num, outOf, table, times, yesNo } from '../markdown.js';
import { resultDate, runLine, type Results, type Stamped } from '../results.js';
import type { BenchSection } from '../section.js';

interface RenderCondition {
  name: string;
  frames: number;
  medianMs: number;
  meanMs: number;
  p95Ms: number;
  ratioToImage: number;
}
interface DropRun {
  injected: number;
  droppedFrames: number;
  skippedInCapture: number[];
  skippedInRecord: number[];
}
interface VirtualDisplayFigures {
  refreshHz: number;
  latency: {
    moves: number;
    framesMedian: number | null;
    framesMax: number | null;
    histogram: Record<string, number>;
    movesNeverDrawnWithinFrames: { frames: number; moves: number };
    lostCaptures: number;
  };
  turntable: {
    clean: { presentations: number; exactToTheFrame: number; percent: number; recordAgreesWithCapture: number };
    withDrops: { presentations: number; everyDropRecorded: boolean; runs: DropRun[] };
  };
}
interface ThreeDResult extends Stamped {
  quick: boolean;
  loadAverageAtStart?: number[];
  loadAverageAtEnd?: number[];
  machine: { cpus?: number; model?: string; gpuModel?: string; driver?: string; os?: string };
  render: {
    renderer: string;
    graphicsArgs: string[];
    viewport: string;
    drawnRect: string;
    msaa: number;
    conditions: RenderCondition[];
  };
  virtualDisplay: VirtualDisplayFigures | null;
  bundle: {
    eagerGzipKB: number;
    targetKB: number;
    withinTarget: boolean;
    pixiInEagerChunks: boolean;
    threeInEagerChunks: boolean | null;
  } | null;
}

const dims = (size: string) => size.replace('x', '×');
const verdict = (met: boolean) => (met ? 'met' : 'not met');
const list = (values: readonly number[]) => (values.length === 0 ? 'none' : values.map((v) => num(v)).join(' and '));
const frames = (count: number | null | undefined) => `${num(count)} display frame${count === 1 ? '' : 's'}`;

function renderTable(result: ThreeDResult): string {
  return table(
    ['Condition', 'Frames', 'Median', 'p95', 'Ratio to the image'],
    result.render.conditions.map((condition) => [
      condition.name === 'image' ? 'image (baseline)' : condition.name,
      num(condition.frames),
      `${num(condition.medianMs, 1)} ms`,
      `${num(condition.p95Ms, 1)} ms`,
      condition.name === 'image' ? '1' : `**${times(condition.ratioToImage)}**`,
    ]),
    [1, 2, 3, 4],
  );
}

/** The goal of the latency part: every move drawn by the frame that delivers it (frame 1), none left undrawn. */
const latencyMet = (display: VirtualDisplayFigures) =>
  display.latency.framesMax === 1 && display.latency.movesNeverDrawnWithinFrames.moves === 0;

const skipsAgree = (run: DropRun) => run.skippedInCapture.join() === [...run.skippedInRecord].sort((a, b) => a - b).join();

function virtualDisplayTable(display: VirtualDisplayFigures): string {
  const { latency, turntable } = display;
  const histogram = Object.entries(latency.histogram)
    .map(([count, moves]) => `${frames(Number(count))}: ${num(moves)}`)
    .join(', ');
  const clean = turntable.clean;
  const drops = turntable.withDrops;
  return table(
    ['Figure, from the captures', 'Result', 'Goal'],
    [
      [
        `Pose-to-pixel latency, inspect mode (${num(latency.moves)} moves)`,
        `${latency.framesMedian === latency.framesMax ? `**${frames(latency.framesMedian)}** for every move drawn` : `median **${frames(latency.framesMedian)}** (${histogram || 'no move drawn'})`}; ` +
          `${num(latency.movesNeverDrawnWithinFrames.moves)} moves unchanged after ${num(latency.movesNeverDrawnWithinFrames.frames)} ` +
          `frames; ${num(latency.lostCaptures)} captures lost`,
        `every move shown by the frame that delivers it: **${verdict(latencyMet(display))}**`,
      ],
      [
        'Turntable exact to the frame, no drop',
        `**${outOf(clean.exactToTheFrame, clean.presentations)} presentations (${num(clean.percent, 1)} %)**; the stage's record ` +
          `says the same as the capture in ${outOf(clean.recordAgreesWithCapture, clean.presentations)}`,
        `all: **${verdict(clean.exactToTheFrame === clean.presentations)}**`,
      ],
      [
        `Turntable with missed vsyncs injected (${num(drops.presentations)} presentations)`,
        `${num(drops.runs.reduce((sum, run) => sum + run.injected, 0))} missed vsyncs in all; the poses the capture ` +
          `never showed are the record's skips in ${outOf(drops.runs.filter(skipsAgree).length, drops.runs.length)} (below)`,
        `every drop recorded: **${yesNo(drops.everyDropRecorded)}**`,
      ],
    ],
  );
}

function dropsTable(display: VirtualDisplayFigures): string {
  return table(
    ['Presentation', 'Missed vsyncs injected', 'Dropped frames, as recorded', 'Poses never shown, by capture', "Skips, as recorded"],
    display.turntable.withDrops.runs.map((run, index) => [
      num(index + 1),
      num(run.injected),
      num(run.droppedFrames),
      list(run.skippedInCapture),
      list(run.skippedInRecord),
    ]),
    [0, 1, 2],
  );
}

function bundleLine(bundle: NonNullable<ThreeDResult['bundle']>): string {
  const absent = (flag: boolean | null) => (flag === null ? 'not checked' : flag ? '**in it**' : 'not in it');
  return (
    `**First participant bundle of a 2D study**: ${num(bundle.eagerGzipKB, 1)} KB gzip, target < ${num(bundle.targetKB)} KB: ` +
    `**${verdict(bundle.withinTarget)}**; three.js ${absent(bundle.threeInEagerChunks)}, PixiJS ${absent(bundle.pixiInEagerChunks)}.`
  );
}

function gpuMachineLine(gpu: ThreeDResult): string {
  const load = (values: number[] | undefined) => num(values?.[0], 2);
  return (
    `Recorded in the result itself: ${gpu.machine.gpuModel ?? 'GPU'}, driver ${gpu.machine.driver ?? '—'}, ${gpu.machine.os ?? '—'}; WebGL renderer ` +
    `\`${gpu.render.renderer}\` (\`${gpu.render.graphicsArgs.join(' ')}\`); load average ${load(gpu.loadAverageAtStart)} at the start, ` +
    `${load(gpu.loadAverageAtEnd)} at the end. ([How the browser gets there](#running-the-browser-benches-on-the-gpu-machine).)`
  );
}

const renderSetting = (result: ThreeDResult) =>
  `At ${dims(result.render.viewport)}, each object drawn ${dims(result.render.drawnRect)} with ${num(result.render.msaa)}× MSAA`;

const conditionNamed = (result: ThreeDResult | undefined, pattern: RegExp) => result?.render.conditions.find((c) => pattern.test(c.name));

export const threeDSection: BenchSection = {
  title: 'bench:3d',
  latest(results) {
    const soft = results.get<ThreeDResult>('3d.json');
    const gpu = results.get<ThreeDResult>('3d-gpu.json');
    const files = ['3d.json', '3d-gpu.json'];
    if (!soft && !gpu) return { ran: 'not run', headline: '—', files };
    const costs = gpu ?? soft;
    const label = gpu ? (gpu.machine.gpuModel ?? 'GPU') : 'SwiftShader';
    const mesh = conditionNamed(costs, /^mesh/);
    const cloud = conditionNamed(costs, /^point cloud/);
    const display = soft?.virtualDisplay;
    const parts = [
      `${label}: ${mesh?.name ?? 'mesh'} **${num(mesh?.medianMs, 1)} ms** a frame (${times(mesh?.ratioToImage)} the image), ` +
        `${cloud?.name ?? 'point cloud'} **${num(cloud?.medianMs, 1)} ms** (${times(cloud?.ratioToImage)})`,
      display &&
        `from the captures: pose-to-pixel latency **${frames(display.latency.framesMedian)}** (median), turntable exact to ` +
        `the frame in ${outOf(display.turntable.clean.exactToTheFrame, display.turntable.clean.presentations)}`,
      soft?.bundle && `first bundle of a 2D study **${num(soft.bundle.eagerGzipKB, 1)} KB** gzip`,
    ];
    const ran = [soft && `${day(resultDate(soft))} (SwiftShader)`, gpu && `${day(resultDate(gpu))} (${label})`].filter(Boolean).join(', ');
    return { ran, headline: parts.filter((part): part is string => typeof part === 'string').join('; '), files };
  },
  render(results: Results) {
    const soft = results.get<ThreeDResult>('3d.json');
    const gpu = results.get<ThreeDResult>('3d-gpu.json');
    return blocks(
      '**`npm run bench:3d [-- --quick] [-- --gpu]`** (`bench/3d/`; the objects themselves: [3D objects](3d-objects.md)), ' +
        'in one run:',
      [
        '1. **Render cost per frame** of a textured mesh (a procedural bumpy sphere with a 1024² texture) and of a ' +
          'coloured point cloud, against the same stage drawing an image in the same rectangle: every frame rendered ' +
          "in full and waited for with a 1-pixel read (the stage's debug hook times each frame).",
        '2. **Pose-to-pixel latency** in inspect mode on the virtual display, judged from the captured pixels alone: ' +
          'display frames from a pointer move to the first captured frame whose pixels change (the frame that ' +
          'delivers the move is frame 1).',
        '3. **Turntable presentations exact to the frame** on the virtual display: 60 poses at 60 poses/s, pose k due ' +
          "at refresh k. Each captured refresh is matched to the closest of the 60 poses' golden renders (the cube " +
          'drawn as a one-pose turntable at that azimuth), clean and with missed vsyncs injected. The stage\'s record ' +
          'is only compared with what the capture showed.',
        '4. **The first participant bundle of a 2D study**: its gzip size, and whether three.js or PixiJS is in it.',
      ].join('\n'),
      '`--gpu` runs part 1 only: the virtual display is a SwiftShader harness, and the bundle does not depend on the GPU.',
      '### SwiftShader',
      runLine('3d.json', soft),
      soft &&
        blocks(
          `${renderSetting(soft)}, renderer \`${soft.render.renderer}\`${soft.quick ? ', `--quick`' : ''}. SwiftShader ` +
            'draws every triangle and every point on the CPU: the ratios measure the rasteriser, not a participant\'s ' +
            'GPU.',
          renderTable(soft),
          soft.virtualDisplay
            ? blocks(
                `On the virtual display at ${num(soft.virtualDisplay.refreshHz)} Hz:`,
                virtualDisplayTable(soft.virtualDisplay),
                'The presentations with missed vsyncs, one line each:',
                dropsTable(soft.virtualDisplay),
              )
            : 'The virtual display part did not run in this result.',
          soft.bundle ? bundleLine(soft.bundle) : 'The bundle was not measured in this result.',
        ),
      '### GPU',
      runLine('3d-gpu.json', gpu),
      gpu &&
        blocks(
          gpuMachineLine(gpu),
          `${renderSetting(gpu)}:`,
          renderTable(gpu),
          'The 1-pixel read makes each figure a full GPU round trip, so these are upper bounds on the drawing itself.',
        ),
    );
  },
};
