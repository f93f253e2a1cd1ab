/**
 * npm run bench:display — the stage on the virtual display (testkit/virtualDisplay.ts), every frame captured and
 * decoded from its pixels.
 * - Timing (timing.ts): per refresh rate × duration, the share of presentations shown exactly as requested (by
 *   capture) and the share whose record equals the capture; the same with one missed vsync injected inside the step
 *   and on its switch frame. Every presentation is kept in the JSON (requested, captured, record, period estimate).
 * - Bubble (bubbleLatency.ts): pointer-to-pixel latency in display frames, ours vs PixiJS BlurFilter + mask vs CSS.
 * Writes bench/results/display.json and prints markdown tables. BENCH_REPS (default 3) plain presentations per
 * cell; BENCH_LONG=1 adds the 10 s column; BENCH_MOVES (default 20) pointer moves per latency row;
 * BENCH_PART=timing|bubble runs one part only (the other part of display.json is kept).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveBenchPage } from '../timing/benchPage';
import { VirtualDisplay } from '../../testkit/virtualDisplay';
import { bubbleLatency, METHODS } from './bubbleLatency';
import type { LatencyRow } from './bubbleLatency';
import { prepareTimingPage, timingRuns } from './timing';
import type { Cell } from './timing';
import { runStamp } from '../shared/run-stamp';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(benchDir, '../..');
const resultsFile = path.join(repoRoot, 'bench/results/display.json');
const RATES = [60, 144, 165, 240];
const LATENCY_RATES = [60, 144, 240];
const REPS = Number(process.env.BENCH_REPS ?? 3);
const MOVES = Number(process.env.BENCH_MOVES ?? 20);
const PART = process.env.BENCH_PART ?? 'all';
const DURATIONS: Array<[string, (hz: number) => number]> = [
  ['1 frame', (hz) => 1000 / hz],
  ['3 frames', (hz) => 3000 / hz],
  ['50 ms', () => 50],
  ['500 ms', () => 500],
  ['1 s', () => 1000],
  ...(process.env.BENCH_LONG === '1' ? ([['10 s', () => 10_000]] as Array<[string, (hz: number) => number]>) : []),
];

const log = (line: string) => console.log(line);
const loadAverage = () => os.loadavg().map((x) => Math.round(x * 100) / 100);

function timingTables(cells: Cell[]): string {
  const names = [...new Set(cells.map((c) => c.duration))];
  const out = ['| Rate | ' + names.join(' | ') + ' |', '|---|' + names.map(() => '---').join('|') + '|'];
  for (const hz of RATES) {
    const row = names.map((name) => {
      const of = (miss: Cell['miss']) => cells.find((c) => c.hz === hz && c.duration === name && c.miss === miss);
      const plain = of(null);
      const missed = [of('inside'), of('switch')].filter((c): c is Cell => c !== undefined);
      const missedN = missed.reduce((s, c) => s + c.presentations, 0);
      const missedOk = missed.reduce((s, c) => s + c.recordEqualsCapture, 0);
      return plain ? `${plain.exactByCapture}/${plain.presentations}, ${plain.recordEqualsCapture}/${plain.presentations}; missed ${missedOk}/${missedN}` : '–';
    });
    out.push(`| ${hz} Hz | ${row.join(' | ')} |`);
  }
  return out.join('\n');
}

function latencyTable(rows: LatencyRow[]): string {
  const out = ['| Rate | ' + METHODS.join(' | ') + ' |', '|---|' + METHODS.map(() => '---').join('|') + '|'];
  for (const hz of LATENCY_RATES) {
    const cells = METHODS.map((m) => {
      const row = rows.find((r) => r.hz === hz && r.method === m);
      if (!row) return '–';
      const hist = Object.entries(row.histogram).map(([frames, n]) => `${frames}: ${n}`).join(', ');
      return `${row.nextFrame}/${row.moves.length} next frame (${hist})`;
    });
    out.push(`| ${hz} Hz | ${cells.join(' | ')} |`);
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  const previous = existsSync(resultsFile) ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as Record<string, unknown>) : {};
  const result: Record<string, unknown> = {
    ...previous,
    machine: 'virtual display (chromium-headless-shell, SwiftShader)',
  };
  // A part not run now keeps its own earlier stamp (each part carries its run: commit, tree, host, load).
  delete result.commit;
  delete result.run;
  const display = await VirtualDisplay.launch({ refreshHz: 60 });
  try {
    if (PART === 'all' || PART === 'timing') {
      const served = await serveBenchPage({ outDir: 'bench-display' });
      try {
        const loadBefore = loadAverage();
        await prepareTimingPage(display, served.url);
        const timing = await timingRuns(display, RATES, DURATIONS, REPS, log);
        result.timing = { date: new Date().toISOString(), run: runStamp(), reps: REPS, durations: DURATIONS.map(([n]) => n), loadAverage: { before: loadBefore, after: loadAverage() }, ...timing };
      } finally {
        await served.close();
      }
    }
    if (PART === 'all' || PART === 'bubble') {
      const served = await serveBenchPage({ root: path.join(repoRoot, 'bench/bubble'), outDir: 'bench-display-bubble' });
      try {
        const loadBefore = loadAverage();
        const rows = await bubbleLatency(display, served.url, LATENCY_RATES, MOVES, log);
        result.bubbleLatency = { date: new Date().toISOString(), run: runStamp(), moves: MOVES, viewport: [display.width, display.height], loadAverage: { before: loadBefore, after: loadAverage() }, rows };
      } finally {
        await served.close();
      }
    }
  } finally {
    await display.close();
  }
  delete result.cells; // the layout before per-presentation detail
  delete result.misses;
  delete result.reps;
  mkdirSync(path.dirname(resultsFile), { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify(result, null, 2)}\n`);
  const timing = result.timing as { cells: Cell[] } | undefined;
  if (timing) console.log(`\nTiming (exact by capture, record = capture; with one missed vsync: record = capture)\n\n${timingTables(timing.cells)}`);
  const bubble = result.bubbleLatency as { rows: LatencyRow[] } | undefined;
  if (bubble) console.log(`\nBubble pointer-to-pixel latency (display frames after the event)\n\n${latencyTable(bubble.rows)}`);
}

await main();
