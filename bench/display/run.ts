/**
 * npm run bench:display — the stage on the virtual display (testkit/virtualDisplay.ts): per refresh rate × duration,
 * every frame captured and decoded from its pixels; the share of presentations shown exactly as requested (by
 * capture), and the share whose record equals the capture. Then missed vsyncs injected inside steps and on the
 * switch frame: each must be reported, and an overstay stated in the record. Writes bench/results/display.json and
 * prints a markdown table. BENCH_REPS (default 3) presentations per cell; BENCH_LONG=1 adds the 10 s column.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveBenchPage } from '../timing/benchPage';
import { shownRuns } from '../../testkit/captureRuns';
import { codeImagePng } from '../../testkit/frameCode';
import { VirtualDisplay } from '../../testkit/virtualDisplay';
import type { FrameOptions } from '../../testkit/virtualDisplay';
import type { PresentationRecord, PresentationStep } from '../../src/web/stage/types';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RECT = { x: 200, y: 120, width: 64, height: 36 };
const CENTRE = [RECT.x + RECT.width / 2, RECT.y + RECT.height / 2] as const;
const RATES = [60, 144, 165, 240];
const REPS = Number(process.env.BENCH_REPS ?? 3);
const DURATIONS: Array<[string, (hz: number) => number]> = [
  ['1 frame', (hz) => 1000 / hz],
  ['3 frames', (hz) => 3000 / hz],
  ['50 ms', () => 50],
  ['500 ms', () => 500],
  ['1 s', () => 1000],
  ...(process.env.BENCH_LONG === '1' ? ([['10 s', () => 10_000]] as Array<[string, (hz: number) => number]>) : []),
];

interface Cell {
  hz: number;
  duration: string;
  presentations: number;
  exactByCapture: number;
  recordEqualsCapture: number;
}

async function main(): Promise<void> {
  const served = await serveBenchPage({ outDir: 'bench-display' });
  const display = await VirtualDisplay.launch({ refreshHz: 60 });
  try {
    await display.goto(served.url);
    await display.evaluate(() => window.__bench.ready(), null);
    const codes = Array.from({ length: 30 }, (_, i) => 8 + i * 16);
    for (const id of codes) {
      const data = (await codeImagePng(id, RECT.width, RECT.height)).toString('base64');
      await display.evaluate(([name, b64]) => window.__bench.addBase64(name, 'image', 'image/png', b64), [`c${id}.png`, data] as const);
    }
    await display.evaluate((names) => window.__bench.prepare(names), codes.map((id) => `c${id}.png`));
    const step = (id: number, ms: number): PresentationStep => ({ label: `c${id}`, items: [{ media: `c${id}.png`, rect: RECT }], end: { kind: 'duration', ms } });

    /** Plays A (ms) then B (1 frame); returns A's record and the refreshes the capture showed A. */
    async function present(a: number, ms: number, hz: number, plan?: (n: number) => FrameOptions | undefined) {
      const { value, frames } = await display.evaluate(
        async (s) => {
          await window.__bench.startPlay(s);
          return window.__bench.playing!;
        },
        [step(a, ms), step(codes[(codes.indexOf(a) + 1) % codes.length], 1000 / hz)],
        { capture: true, plan },
      );
      if (!Array.isArray(value)) throw new Error(`play failed: ${JSON.stringify(value)}`);
      const runs = (await shownRuns(frames, ...CENTRE)).filter((r) => r.code !== null);
      const shownA = runs.find((r) => r.code === a);
      return { record: (value as PresentationRecord[])[0], captured: shownA?.refreshes ?? null };
    }

    const cells: Cell[] = [];
    const misses: Array<Record<string, unknown>> = [];
    let next = 0;
    for (const hz of RATES) {
      display.setRefreshRate(hz);
      await display.frames(90); // the stage sees the new rate (30 steady frames) and sharpens it
      const measured = await display.read(() => window.__glimpseStage!.refreshMs, null);
      for (const [name, ms] of DURATIONS) {
        const expected = Math.max(1, Math.round(ms(hz) / (1000 / hz)));
        const cell: Cell = { hz, duration: name, presentations: 0, exactByCapture: 0, recordEqualsCapture: 0 };
        for (let r = 0; r < REPS; r++) {
          const id = codes[next++ % codes.length];
          const { record, captured } = await present(id, ms(hz), hz);
          cell.presentations += 1;
          if (captured === expected) cell.exactByCapture += 1;
          if (captured === record.shownFrames && record.requestedFrames === expected) cell.recordEqualsCapture += 1;
        }
        cells.push(cell);
        console.log(`${hz} Hz ${name}: exact ${cell.exactByCapture}/${cell.presentations}, record = capture ${cell.recordEqualsCapture}/${cell.presentations} (measured period ${measured.toFixed(4)} ms)`);
      }
      // Missed vsyncs: one inside a 500 ms step (frame 20 of the play), one on its switch frame.
      const expected = Math.round(500 / (1000 / hz));
      const inside = await present(codes[next++ % codes.length], 500, hz, (n) => (n === 20 ? { missedVsyncs: 1 } : undefined));
      misses.push({ hz, where: 'inside', captured: inside.captured, shownFrames: inside.record.shownFrames, droppedFrames: inside.record.droppedFrames, overstay: (inside.captured ?? 0) - expected });
      // The switch frame is the (expected + 1)-th frame of the play when the onset is in its first frame.
      const atSwitch = await present(codes[next++ % codes.length], 500, hz, (n) => (n === expected ? { missedVsyncs: 1 } : undefined));
      misses.push({ hz, where: 'switch', captured: atSwitch.captured, shownFrames: atSwitch.record.shownFrames, droppedFrames: atSwitch.record.droppedFrames, overstay: (atSwitch.captured ?? 0) - expected });
      console.log(JSON.stringify(misses.slice(-2)));
    }
    const result = { machine: 'virtual display (chromium-headless-shell, SwiftShader)', reps: REPS, cells, misses };
    mkdirSync(path.join(repoRoot, 'bench/results'), { recursive: true });
    writeFileSync(path.join(repoRoot, 'bench/results/display.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.log('\n| Rate | ' + DURATIONS.map(([n]) => n).join(' | ') + ' |');
    console.log('|---|' + DURATIONS.map(() => '---').join('|') + '|');
    for (const hz of RATES) {
      const row = cells.filter((c) => c.hz === hz).map((c) => `${c.exactByCapture}/${c.presentations} exact, record = capture ${c.recordEqualsCapture}/${c.presentations}`);
      console.log(`| ${hz} Hz | ${row.join(' | ')} |`);
    }
  } finally {
    await display.close();
    await served.close();
  }
}

await main();
