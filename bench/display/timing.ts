/**
 * bench:display, timing part: the real Stage (bench/timing's page) on the virtual display, per refresh rate ×
 * duration. Each presentation plays A (the duration) then B (1 frame), every frame captured; the refreshes A stayed
 * up are read from the pixels (pixel-code images), never from the stage's records, and compared with the record.
 * Besides the plain presentations, each cell gets one with a missed vsync inside A (when A has 2 frames or more)
 * and one on the frame that should draw B (A overstays one refresh and its record must say so).
 */
import { shownRuns } from '../../testkit/captureRuns';
import { codeImagePng } from '../../testkit/frameCode';
import type { FrameOptions, VirtualDisplay } from '../../testkit/virtualDisplay';
import type { PresentationRecord, PresentationStep } from '../../src/web/stage/types';

const RECT = { x: 200, y: 120, width: 64, height: 36 };
const CENTRE = [RECT.x + RECT.width / 2, RECT.y + RECT.height / 2] as const;
const CODES = Array.from({ length: 30 }, (_, i) => 8 + i * 16);

export type Miss = 'inside' | 'switch';

/** A count this close to k + ½ (in refreshes) is k + ½: the float noise of ms × hz / 1000 when ms is k·1000 / hz. */
const HALF_FRAME_FLOAT_NOISE = 1e-9;
/** docs/timing.md: near a half frame, the band where the period's uncertainty decides is "at most 0.1 frame". */
const UNCERTAINTY_BAND_MAX_FRAMES = 0.1;

/**
 * The refreshes a duration covers on a display at `hz`: the count every presentation is held to. Written here from
 * the rule as docs/timing.md states it ("Every duration is converted to a whole number of frames, the nearest
 * (`round(ms / period)`, at least 1). Half frames round up"), at the rate the virtual display was set to, NOT taken
 * from the stage's code (`durationToFrames` in src/web/stage/frameClock.ts is what this benchmark checks):
 * round(ms × hz / 1000), an exact half rounding up, at least 1 for a positive duration.
 *
 * The rule also rounds up "every count the period's uncertainty cannot tell from a half frame" (within 3 standard
 * errors of the stage's fitted period, at most 0.1 frame): what the stage does there depends on its fit, not on the
 * duration and the rate alone, so a duration that falls within 0.1 frame of a half (other than on it) has no
 * expectation here and is refused. The bench's durations (1 and 3 frames, 50 ms, 500 ms, 1 s, 10 s at 60, 144, 165
 * and 240 Hz) are whole counts, exact halves (500 ms at 165 Hz: 82.5 → 83) or 0.25 frame or more from a half.
 */
export function nominalRefreshes(ms: number, hz: number): number {
  if (!(hz > 0) || !Number.isFinite(hz)) throw new RangeError(`nominalRefreshes: refresh rate must be a positive number, got ${hz}`);
  if (!(ms > 0)) return 0;
  const refreshes = (ms * hz) / 1000;
  const whole = Math.floor(refreshes);
  const fromHalf = Math.abs(refreshes - whole - 0.5);
  if (fromHalf <= HALF_FRAME_FLOAT_NOISE) return Math.max(1, whole + 1);
  if (fromHalf <= UNCERTAINTY_BAND_MAX_FRAMES) {
    throw new RangeError(`nominalRefreshes: ${ms} ms at ${hz} Hz is ${refreshes} refreshes, within ${UNCERTAINTY_BAND_MAX_FRAMES} frame of a half: the stage's count depends on its fitted period's uncertainty there`);
  }
  return Math.max(1, Math.round(refreshes));
}

export interface Presentation {
  hz: number;
  duration: string;
  requestedMs: number;
  /** nominalRefreshes(requestedMs, hz): the refreshes the duration covers at the rate sent (the truth the record is held to). */
  expectedFrames: number;
  /** Where a missed vsync was injected (none when absent) and where it landed, in frames after A's onset. */
  miss: Miss | null;
  missFramesAfterOnset: number | null;
  /** Refreshes A was on screen, from the pixels. */
  captured: number | null;
  record: Pick<PresentationRecord, 'requestedFrames' | 'shownFrames' | 'renderedFrames' | 'droppedFrames' | 'refreshMs'>;
  /** The stage's period estimate right after the play. */
  periodMs: number;
  uncertaintyMs: number | null;
  /** captured = expected (+1 when the miss landed on the frame that should draw B). */
  exactByCapture: boolean;
  /** requested = expected, shown = captured, dropped = the misses injected. */
  recordEqualsCapture: boolean;
}

export interface Cell {
  hz: number;
  duration: string;
  miss: Miss | null;
  presentations: number;
  exactByCapture: number;
  recordEqualsCapture: number;
}

export async function prepareTimingPage(display: VirtualDisplay, url: string): Promise<void> {
  await display.goto(url);
  await display.evaluate(() => window.__bench.ready(), null);
  for (const id of CODES) {
    const data = (await codeImagePng(id, RECT.width, RECT.height)).toString('base64');
    await display.evaluate(([name, b64]) => window.__bench.addBase64(name, 'image', 'image/png', b64), [`c${id}.png`, data] as const);
  }
  await display.evaluate((names) => window.__bench.prepare(names), CODES.map((id) => `c${id}.png`));
}

const step = (id: number, ms: number): PresentationStep => ({ label: `c${id}`, items: [{ media: `c${id}.png`, rect: RECT }], end: { kind: 'duration', ms } });

export async function timingRuns(
  display: VirtualDisplay,
  rates: number[],
  durations: Array<[string, (hz: number) => number]>,
  reps: number,
  log: (line: string) => void,
): Promise<{ presentations: Presentation[]; cells: Cell[]; measuredPeriods: Array<{ hz: number; periodMs: number; uncertaintyMs: number | null }> }> {
  let next = 0;
  /** Frames between the start of a play and A's onset, as last seen (a missed vsync is placed from it). */
  let onsetFrame = 1;

  async function present(hz: number, name: string, ms: number, miss: Miss | null): Promise<Presentation> {
    const a = CODES[next++ % CODES.length];
    const expected = nominalRefreshes(ms, hz);
    const missAt = miss === null ? null : onsetFrame + (miss === 'inside' ? Math.floor(expected / 2) : expected);
    const plan = (n: number): FrameOptions | undefined => (n === missAt ? { missedVsyncs: 1 } : undefined);
    const { value, frames } = await display.evaluate(
      async (s) => {
        await window.__bench.startPlay(s);
        return window.__bench.playing!;
      },
      [step(a, ms), step(CODES[(CODES.indexOf(a) + 1) % CODES.length], 1000 / hz)],
      { capture: true, plan },
    );
    if (!Array.isArray(value)) throw new Error(`play failed: ${JSON.stringify(value)}`);
    const runs = (await shownRuns(frames, ...CENTRE)).filter((r) => r.code !== null);
    const shownA = runs.find((r) => r.code === a);
    if (shownA && miss === null) onsetFrame = shownA.start;
    const record = (value as PresentationRecord[])[0];
    const refresh = await display.read(() => window.__glimpseStage!.refresh, null);
    const captured = shownA?.refreshes ?? null;
    const missFramesAfterOnset = missAt === null || !shownA ? null : missAt - shownA.start;
    // The plan places the miss from the last onset seen; it can land a frame off. A's record must count it when it
    // fell on one of A's frames (up to the frame that replaced A), B's when later.
    const missesInA = missFramesAfterOnset !== null && missFramesAfterOnset >= 1 && missFramesAfterOnset <= expected ? 1 : 0;
    // A miss on the frame that should draw B keeps A up one refresh longer (wherever the plan meant it to land).
    const exactByCapture = captured === expected + (missFramesAfterOnset === expected ? 1 : 0);
    return {
      hz,
      duration: name,
      requestedMs: ms,
      expectedFrames: expected,
      miss,
      missFramesAfterOnset,
      captured,
      record: {
        requestedFrames: record.requestedFrames,
        shownFrames: record.shownFrames,
        renderedFrames: record.renderedFrames,
        droppedFrames: record.droppedFrames,
        refreshMs: record.refreshMs,
      },
      periodMs: refresh?.periodMs ?? Number.NaN,
      uncertaintyMs: refresh?.uncertaintyMs ?? null,
      exactByCapture,
      recordEqualsCapture: captured !== null && record.requestedFrames === expected && record.shownFrames === captured && record.droppedFrames === missesInA,
    };
  }

  const presentations: Presentation[] = [];
  const cells: Cell[] = [];
  const measuredPeriods: Array<{ hz: number; periodMs: number; uncertaintyMs: number | null }> = [];
  for (const hz of rates) {
    display.setRefreshRate(hz);
    await display.frames(90); // the stage sees the new rate (30 steady frames) and sharpens it
    const refresh = await display.read(() => window.__glimpseStage!.refresh, null);
    measuredPeriods.push({ hz, periodMs: refresh?.periodMs ?? Number.NaN, uncertaintyMs: refresh?.uncertaintyMs ?? null });
    for (const [name, ms] of durations) {
      const expected = nominalRefreshes(ms(hz), hz);
      const misses: Array<Miss | null> = [...Array<null>(reps).fill(null), ...(expected >= 2 ? (['inside'] as const) : []), 'switch'];
      for (const miss of misses) {
        const p = await present(hz, name, ms(hz), miss);
        presentations.push(p);
        let cell = cells.find((c) => c.hz === hz && c.duration === name && c.miss === miss);
        if (!cell) cells.push((cell = { hz, duration: name, miss, presentations: 0, exactByCapture: 0, recordEqualsCapture: 0 }));
        cell.presentations += 1;
        cell.exactByCapture += p.exactByCapture ? 1 : 0;
        cell.recordEqualsCapture += p.recordEqualsCapture ? 1 : 0;
        if (!p.recordEqualsCapture || !p.exactByCapture) log(`  MISMATCH ${JSON.stringify(p)}`);
      }
      const summary = cells.filter((c) => c.hz === hz && c.duration === name).map((c) => `${c.miss ?? 'plain'} ${c.exactByCapture}/${c.recordEqualsCapture}/${c.presentations}`);
      log(`${hz} Hz ${name} (${expected} frames): exact/record=capture/n ${summary.join(', ')}; period ${presentations.at(-1)!.periodMs.toFixed(5)} ms`);
    }
  }
  return { presentations, cells, measuredPeriods };
}
