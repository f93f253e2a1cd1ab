import { blocks, bullets, day, num, outOf, percent, table, yesNo } from '../markdown.js';
import { resultDate, runLine, type Results, type Stamped } from '../results.js';
import type { BenchSection } from '../section.js';

/** The fields of bench/display's results read here (bench/display/run.ts, timing.ts, bubbleLatency.ts, clips.ts). */
type Miss = 'inside' | 'switch' | null;
type Cell = { hz: number; duration: string; miss: Miss; presentations: number; exactByCapture: number; recordEqualsCapture: number };
interface Presentation {
  hz: number;
  duration: string;
  /** nominalRefreshes(ms, hz): the bench's own formula, not the stage's. */
  expectedFrames: number;
  miss: Miss;
  missFramesAfterOnset: number | null;
  periodMs: number;
  uncertaintyMs: number | null;
  exactByCapture: boolean;
  recordEqualsCapture: boolean;
}
type LoadBeforeAfter = { before: number[]; after: number[] };
interface TimingPart extends Stamped {
  reps: number;
  durations: string[];
  loadAverage?: LoadBeforeAfter;
  presentations: Presentation[];
  cells: Cell[];
  measuredPeriods: { hz: number; periodMs: number; uncertaintyMs: number | null }[];
  note?: string;
}
type LatencyRow = { hz: number; method: 'ours' | 'pixi-filter' | 'css'; moves: unknown[]; nextFrame: number; histogram: Record<string, number> };
type BubblePart = Stamped & { moves: number; viewport: [number, number]; loadAverage?: LoadBeforeAfter; rows: LatencyRow[] };
interface DisplayResult {
  machine?: string;
  /** Written by the layout before each part was stamped; which part it belongs to is not recorded. */
  commit?: string;
  timing?: TimingPart;
  bubbleLatency?: BubblePart;
}
interface ClipSummary {
  size: string;
  upload: string | null;
  /** Captured plays: read from the pixels. */
  capturedPlays: number;
  capturedSkipped: number;
  capturedRepeated: number;
  capturedExactCadence: number;
  recordEqualsCapture: number;
  capturedWallMsPerFrame: number[];
  /** Paced plays: the stage's record alone. */
  pacedPlays: number;
  pacedSkipped: number;
  pacedRepeated: number;
  pacedDropped: number;
  pacedWallMsPerFrame: number[];
}
interface ClipsResult extends Stamped {
  clip: { fps: number; seconds: number; frames: number; codec: string; refreshHz: number };
  host?: { cpus: number; model?: string; load?: number[] };
  machine?: { gpuModel?: string; driver?: string; os?: string };
  renderers?: string[];
  summary: ClipSummary[];
  sizes: { size: string; clipBytes: number; error?: string }[];
}

/** A part of display.json not run yet (BENCH_PART runs one), or the whole file missing. */
const partMissing = (display: DisplayResult | undefined, part: string) =>
  display ? `The ${part} part is not in \`display.json\`: not run on this checkout.` : runLine('display.json', undefined);
const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];
const loadLine = (load: LoadBeforeAfter | undefined) =>
  load ? `Load average (the bench's own record) ${num(load.before[0], 2)} → ${num(load.after[0], 2)}.` : '';
const rateList = (rates: readonly number[]) => rates.map((hz) => num(hz)).join(', ');
const sum = <T>(items: readonly T[], of: (item: T) => number) => items.reduce((total, item) => total + of(item), 0);
const size = (text: string) => text.replace('x', '×');

function timingTable(part: TimingPart): string {
  const rates = unique(part.cells.map((c) => c.hz));
  const rows = rates.map((hz) => [
    `${num(hz)} Hz`,
    ...part.durations.map((duration) => {
      const cells = part.cells.filter((c) => c.hz === hz && c.duration === duration);
      const plain = cells.find((c) => c.miss === null);
      const missed = cells.filter((c) => c.miss !== null);
      const expected = part.presentations.find((p) => p.hz === hz && p.duration === duration)?.expectedFrames;
      if (!plain) return '—';
      return (
        `${num(expected)}: ${outOf(plain.exactByCapture, plain.presentations)}, ${outOf(plain.recordEqualsCapture, plain.presentations)}; ` +
        `missed ${outOf(sum(missed, (c) => c.recordEqualsCapture), sum(missed, (c) => c.presentations))}`
      );
    }),
  ]);
  return table(['Rate', ...part.durations], rows);
}

/** Misses planned on the frame that should draw B but placed from the previous onset, so landed a frame off. */
function displacedMisses(part: TimingPart): string {
  const displaced = part.presentations.filter((p) => p.miss === 'switch' && p.missFramesAfterOnset !== p.expectedFrames);
  if (displaced.length === 0) return '';
  return (
    `A missed vsync is placed from the onset frame of the previous presentation, so it can land a frame off; then the ` +
    `record is held to where it landed. Misses planned on the switch frame that landed elsewhere (refresh after A's ` +
    `onset, against the switch frame's): ` +
    displaced
      .map((p) => `${num(p.hz)} Hz ${p.duration} at ${num(p.missFramesAfterOnset)} for ${num(p.expectedFrames)} (record = capture: ${yesNo(p.recordEqualsCapture)})`)
      .join('; ') +
    '.'
  );
}

function periodTable(part: TimingPart): string {
  // a difference that rounds to nothing prints 0, not "-0"
  const microseconds = (ms: number | null | undefined, digits: number) =>
    ms === null || ms === undefined ? '—' : num(Math.abs(ms * 1000) < 0.5 * 10 ** -digits ? 0 : ms * 1000, digits);
  const rows = part.measuredPeriods.map((m) => {
    const sent = 1000 / m.hz;
    const last = part.presentations.filter((p) => p.hz === m.hz).at(-1);
    return [
      `${num(m.hz)} Hz`,
      `${num(sent, 5)} ms`,
      `${num(m.periodMs, 5)} ms ± ${microseconds(m.uncertaintyMs, 3)} µs`,
      `${microseconds(m.periodMs - sent, 2)} µs`,
      last ? `${num(last.periodMs, 5)} ms ± ${microseconds(last.uncertaintyMs, 3)} µs` : '—',
      last ? `${microseconds(last.periodMs - sent, 2)} µs` : '—',
    ];
  });
  return table(
    ['Rate', 'Period sent', "Stage's estimate after 90 frames (± SE)", 'Off by', "Stage's estimate after the last presentation (± SE)", 'Off by'],
    rows,
    [1, 2, 3, 4, 5],
  );
}

const METHOD_NAMES: Record<LatencyRow['method'], string> = {
  ours: 'ours (`<Stage>` bubble)',
  'pixi-filter': 'PixiJS `BlurFilter` + mask',
  css: 'CSS `filter: blur()` + `clip-path`',
};

function latencyTable(part: BubblePart): string {
  const methods = unique(part.rows.map((r) => r.method));
  const rows = unique(part.rows.map((r) => r.hz)).map((hz) => [
    `${num(hz)} Hz`,
    ...methods.map((method) => {
      const row = part.rows.find((r) => r.hz === hz && r.method === method);
      if (!row) return '—';
      const all = Object.entries(row.histogram).map(([frames, n]) => `${frames}: ${num(n)}`).join(', ');
      const others = Object.keys(row.histogram).some((frames) => frames !== '1');
      return `${outOf(row.nextFrame, row.moves.length)} in the next frame${others ? ` (frames: ${all})` : ''}`;
    }),
  ]);
  return table(['Rate', ...methods.map((m) => METHOD_NAMES[m] ?? m)], rows);
}

function clipsTable(clips: ClipsResult): string {
  const range = (values: number[]) => (values.length === 0 ? '—' : `${num(Math.min(...values), 2)}–${num(Math.max(...values), 2)}`);
  const rows = clips.summary.map((s) => {
    const captured = [`**${num(s.capturedSkipped)}** / ${num(s.capturedRepeated)}`, outOf(s.capturedExactCadence, s.capturedPlays), outOf(s.recordEqualsCapture, s.capturedPlays)];
    const paced = `${num(s.pacedSkipped)} / ${num(s.pacedRepeated)} / ${num(s.pacedDropped)} (${num(s.pacedPlays)} plays)`;
    const wall = s.capturedWallMsPerFrame.map((ms) => num(ms, 2)).join(', ');
    return [size(s.size), s.upload ?? '—', num(clips.sizes.find((z) => z.size === s.size)?.clipBytes), ...captured, wall, paced, range(s.pacedWallMsPerFrame)];
  });
  const headers = ['Clip', 'Upload', 'Bytes', 'Captured: skipped / repeated, by capture', 'Exact cadence, by capture', 'Record = capture'];
  return table([...headers, 'Wall ms a frame (captured)', 'Paced: skipped / repeated / dropped, as recorded', 'Wall ms a frame (paced)'], rows, [2, 3, 4, 5, 6, 8]);
}

function clipsBlock(clips: ClipsResult | undefined): string {
  const byCapture = clips?.summary.every((s) => s.capturedSkipped === 0 && s.capturedRepeated === 0 && s.capturedExactCadence === s.capturedPlays && s.capturedPlays > 0);
  const paced = clips?.summary.every((s) => s.pacedSkipped === 0 && s.pacedRepeated === 0);
  return blocks(
    '`npx tsx bench/display/clips.ts --gpu` (`scripts/gpu/run-on-gpu.sh fidelity`, after bench:fidelity): frame-coded clips played by the stage on the ' +
      "virtual display on the GPU machine, drawn 1:1 over the whole viewport. Captured plays: every display frame " +
      'captured as a PNG and the clip frame read from its pixels; a capture costs more than a refresh, so virtual time ' +
      'runs slower than the wall clock there (the wall time per display frame says by how much). Paced plays: no capture, ' +
      "each display frame sent at its time on the wall clock, after the display's clock is moved to it " +
      "(`VirtualDisplay.catchUp`); their figures are the stage's own record (**as recorded**), which the captured plays " +
      'held to the pixels.',
    runLine('display-gpu.json', clips),
    clips &&
      blocks(
        `${clips.clip.codec}, ${num(clips.clip.fps)} fps, ${num(clips.clip.seconds)} s = ${num(clips.clip.frames)} frames, on ` +
          `a ${num(clips.clip.refreshHz)} Hz display; ${clips.machine?.gpuModel ?? 'GPU'}, driver ${clips.machine?.driver ?? '—'}, ` +
          `WebGL renderer \`${(clips.renderers ?? []).join(', ') || 'not recorded'}\`, ${num(clips.host?.cpus)} CPU cores, ` +
          `load average at the start (the bench's own record) ${num(clips.host?.load?.[0], 2)}.`,
        clipsTable(clips),
        bullets(clips.sizes.filter((z) => z.error).map((z) => `${size(z.size)}: ${z.error}`)),
        `Goal: no clip frame skipped, each on exactly its refresh. By capture: **${byCapture ? 'met' : 'not met'}**; ` +
          `in the paced plays, as recorded, none skipped or repeated: ${yesNo(paced)}.`,
      ),
  );
}

export const displaySection: BenchSection = {
  title: 'bench:display',
  latest(results) {
    const display = results.get<DisplayResult>('display.json');
    const clips = results.get<ClipsResult>('display-gpu.json');
    const files = ['display.json', 'display-gpu.json'];
    if (!display && !clips) return { ran: 'not run', headline: '—', files };
    const timing = display?.timing;
    const bubble = display?.bubbleLatency;
    const ours = bubble?.rows.filter((r) => r.method === 'ours') ?? [];
    // the bubble part's day only where it differs from the timing part's
    const bubbleDay = bubble && day(resultDate(bubble)) !== (timing && day(resultDate(timing))) && `bubble ${day(resultDate(bubble))}`;
    const ran = [timing && day(resultDate(timing)), bubbleDay, clips && `GPU clips ${day(resultDate(clips))}`].filter(Boolean);
    const count = timing ? timing.presentations.length : 0;
    const headline = [
      timing &&
        `on the virtual display at ${rateList(unique(timing.cells.map((c) => c.hz)))} Hz: **${num(count)}** presentations, ` +
          `**${percent(timing.presentations.filter((p) => p.exactByCapture).length / count)}** shown their exact refreshes by ` +
          `capture, record = capture in ${percent(timing.presentations.filter((p) => p.recordEqualsCapture).length / count)}`,
      bubble && `ours: the bubble window sharp in the next frame after **${outOf(sum(ours, (r) => r.nextFrame), sum(ours, (r) => r.moves.length))}** moves`,
      clips &&
        `${num(clips.clip.fps)} fps clips at ${clips.summary.map((s) => size(s.size)).join(' and ')} on the GPU: ` +
          `**${num(sum(clips.summary, (s) => s.capturedSkipped))}** skipped frames by capture`,
    ];
    return { ran: ran.join('; '), headline: headline.filter(Boolean).join('; '), files };
  },
  render(results: Results) {
    const display = results.get<DisplayResult>('display.json');
    const clips = results.get<ClipsResult>('display-gpu.json');
    const timing = display?.timing;
    const bubble = display?.bubbleLatency;
    const ours = bubble?.rows.filter((r) => r.method === 'ours') ?? [];
    const count = timing?.presentations.length ?? 0;
    return blocks(
      '**`npm run bench:display`** (`bench/display/`): the real Stage (bench:timing\'s page) on the virtual display ' +
        '(`testkit/virtualDisplay.ts`: `chromium-headless-shell` draws only the frames the bench sends, at the rate it ' +
        'chooses, and every frame is captured as a PNG). Each presentation shows a pixel-code image A for the duration, ' +
        'then B for one frame; the refreshes A stayed on screen are read from the captured pixels, never from the ' +
        "stage's records. The refreshes a duration should cover at the rate sent come from `nominalRefreshes` in " +
        '`bench/display/timing.ts`: the rule of [Frame-accurate timing](timing.md) (`round(ms × hz / 1000)`, a half up, ' +
        "at least 1) written out in the bench, a formula independent of the stage's own `durationToFrames`. Per cell: " +
        'plain presentations shown exactly that count by capture, and those whose record (`requestedFrames` = that ' +
        'count, `shownFrames` = the refreshes captured, `droppedFrames` = the missed vsyncs that fell on A) equals the ' +
        'capture; then one presentation with a missed vsync injected inside A (when A lasts 2 frames or more) and one on ' +
        'the frame that should draw B (A stays one refresh longer, and its record must say so). Every presentation is in ' +
        'the JSON. `BENCH_REPS` plain presentations per cell, `BENCH_LONG=1` adds 10 s, `BENCH_PART=timing|bubble` runs ' +
        'one part and keeps the other, with its own date.',
      display?.machine && `Machine: ${display.machine}.`,
      display?.commit && `\`display.json\` also carries a top-level \`commit\` (\`${display.commit}\`) from before each part was stamped; which part it belongs to is not recorded.`,
      timing ? `Timing part: ${runLine('display.json', timing)} ${loadLine(timing.loadAverage)}` : partMissing(display, 'timing'),
      timing &&
        blocks(
          `${num(timing.reps)} plain presentations per cell. Each cell reads "expected refreshes: exact by capture, record = ` +
            'capture; missed record = capture": the refreshes `nominalRefreshes` expects; of the plain presentations, those ' +
            'exact by capture and those whose record equals the capture; of those with a missed vsync injected, those whose ' +
            'record equals the capture.',
          timingTable(timing),
          `${num(count)} presentations: every one exact by capture (a miss on the switch frame counted as one refresh ` +
            `more): ${yesNo(timing.presentations.every((p) => p.exactByCapture))}; every record equal to the capture: ` +
            `${yesNo(timing.presentations.every((p) => p.recordEqualsCapture))}.`,
          displacedMisses(timing),
          timing.note && `Note recorded with the run: ${timing.note}.`,
          "The stage's refresh period, its own estimate (as recorded), against the period the display was sent at:",
          periodTable(timing),
        ),
      '**Bubble pointer-to-pixel latency** (same command; `bench/display/bubbleLatency.ts`): bench:bubble\'s page and its ' +
        'three methods at the display\'s size, σ 16, a window radius of an eighth of the height, a photo-like image. A ' +
        'mouse move goes out between two frames (`Input.dispatchMouseEvent` after one `HeadlessExperimental.beginFrame` ' +
        'returned); the frames after it are captured, and the first frame sharp at the pointer is found from the PNG alone: ' +
        'the mean neighbour difference in a 32 px square at the pointer, past halfway from its blurred level before the ' +
        'move to its level 4 frames later (a move whose last frame is not twice as sharp as before counts as never shown). ' +
        'The moves go in turn to five targets at least two radii apart. On the virtual display frames wait for the page, ' +
        'so a slower method is not seen late here: its cost per frame is what [bench:bubble](#benchbubble) measures.',
      bubble ? `Bubble part: ${runLine('display.json', bubble)} ${loadLine(bubble.loadAverage)}` : partMissing(display, 'bubble'),
      bubble &&
        blocks(
          `${num(bubble.moves)} moves per row, ${num(bubble.viewport[0])}×${num(bubble.viewport[1])} display, window radius ` +
            `${num(Math.round(bubble.viewport[1] / 8))} px:`,
          latencyTable(bubble),
          `Target: ours sharp at the pointer in the very next frame after every move: ` +
            `**${ours.length > 0 && ours.every((r) => r.nextFrame === r.moves.length) ? 'met' : 'not met'}**.`,
        ),
      '### Clip cadence on the GPU',
      clipsBlock(clips),
    );
  },
};
