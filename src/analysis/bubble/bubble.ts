/**
 * Gaze-contingent bubble screenings → dwell heatmaps per stimulus and media (A, B).
 *
 * - Dwell: each mouse sample weighs the time until the next one (independent of the refresh rate); the last
 *   sample weighs until the end of the recording when its length is known, else the median interval of that
 *   recording. Samples are put in time order first; samples off the image count as off-image dwell.
 * - Grid: cells of `cell` stimulus pixels (default 4), accumulated sparsely while reading, so memory holds the
 *   visited cells, not one full grid per media.
 * - Smoothing: Gaussian of σ = the screening's window radius (BubbleView blurs its click maps the same way), or
 *   the `sigma` option, truncated at 3σ, zero outside the image. Peak = the densest smoothed cell's centre.
 * - Coverage: share of the image revealed at least once by the window (cells within the radius of a sample),
 *   averaged over screenings.
 */
import { consumeVotes, type VoteCounts } from '../collect.js';
import type { BubbleScreening, VoteSource } from '../types.js';

/** Most columns of the heatmap drawn in the report (cells are merged into blocks above that). */
export const DISPLAY_COLUMNS = 64;

export interface BubbleHeatmap {
  /** Display grid: `columns` × `rows` blocks of `blockPx` stimulus pixels, row-major, scaled to a peak of 1. */
  columns: number;
  rows: number;
  blockPx: number;
  values: number[];
}

export interface BubbleMediaResult {
  stimulus: string;
  media: 'A' | 'B';
  width: number;
  height: number;
  screenings: number;
  observers: number;
  sigmaPx: number;
  cellPx: number;
  /** Dwell on the image, summed over screenings (ms). */
  totalDwellMs: number;
  meanDwellMs: number;
  offImageDwellMs: number;
  meanSamples: number;
  /** Mean share of the image revealed per screening (0..1). */
  coverage: number;
  peak: { x: number; y: number } | null;
  heatmap: BubbleHeatmap;
}

export interface EmotionAccuracy {
  stimulus: string;
  answered: number;
  correct: number;
  accuracy: number;
}

export interface BubbleResult {
  media: BubbleMediaResult[];
  /** Emotion recognition where the expected emotion is known (rating = emotion index + 1). */
  emotion: { answered: number; correct: number; accuracy: number; perStimulus: EmotionAccuracy[] } | null;
  counts: VoteCounts;
  /** Distinct observers over all media. */
  observers: number;
  /** Screenings whose image size disagreed with the first one of their media (the first is kept). */
  sizeMismatches: number;
}

interface MediaAccumulator {
  stimulus: string;
  media: 'A' | 'B';
  width: number;
  height: number;
  columns: number;
  rows: number;
  /** Dwell per cell, one sparse map per smoothing σ (radius, or the fixed sigma). */
  dwellBySigma: Map<number, Map<number, number>>;
  observers: Set<string>;
  screenings: number;
  dwellMs: number;
  offImageMs: number;
  samples: number;
  coverageSum: number;
}

export async function analyseBubble(
  source: VoteSource<BubbleScreening>,
  options: { excludeFlagged: boolean; sigma: number | null; cell: number },
): Promise<BubbleResult> {
  const cell = options.cell;
  const accumulators = new Map<string, MediaAccumulator>();
  const emotionByStimulus = new Map<string, { answered: number; correct: number }>();
  let sizeMismatches = 0;
  const observers = new Set<string>();

  const counts = await consumeVotes(source, options.excludeFlagged, (s) => {
    if (!(s.width > 0 && s.height > 0 && s.radius >= 0) || !Array.isArray(s.samples)) return false;
    const key = `${s.media}\u0000${s.stimulus}`;
    let acc = accumulators.get(key);
    if (!acc) {
      acc = {
        stimulus: s.stimulus,
        media: s.media,
        width: s.width,
        height: s.height,
        columns: Math.ceil(s.width / cell),
        rows: Math.ceil(s.height / cell),
        dwellBySigma: new Map(),
        observers: new Set(),
        screenings: 0,
        dwellMs: 0,
        offImageMs: 0,
        samples: 0,
        coverageSum: 0,
      };
      accumulators.set(key, acc);
    } else if (acc.width !== s.width || acc.height !== s.height) sizeMismatches++;
    addScreening(acc, s, options.sigma ?? s.radius, cell);
    observers.add(s.observer);
    if (s.expectedEmotion !== null && s.expectedEmotion !== undefined && s.rating !== null && s.rating !== undefined) {
      const e = emotionByStimulus.get(s.stimulus) ?? { answered: 0, correct: 0 };
      e.answered++;
      if (s.rating - 1 === s.expectedEmotion) e.correct++;
      emotionByStimulus.set(s.stimulus, e);
    }
    return true;
  });

  // Stimuli in order of first appearance, media A before B.
  const firstSeen = new Map<string, number>();
  for (const acc of accumulators.values()) if (!firstSeen.has(acc.stimulus)) firstSeen.set(acc.stimulus, firstSeen.size);
  const media = [...accumulators.values()]
    .sort((a, b) => (firstSeen.get(a.stimulus) as number) - (firstSeen.get(b.stimulus) as number) || a.media.localeCompare(b.media))
    .map((acc) => finishMedia(acc, cell));
  const perStimulus = [...emotionByStimulus].map(([stimulus, e]) => ({ stimulus, ...e, accuracy: e.correct / e.answered }));
  const answered = perStimulus.reduce((a, e) => a + e.answered, 0);
  const correct = perStimulus.reduce((a, e) => a + e.correct, 0);
  return {
    media,
    emotion: answered > 0 ? { answered, correct, accuracy: correct / answered, perStimulus } : null,
    counts,
    observers: observers.size,
    sizeMismatches,
  };
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function addScreening(acc: MediaAccumulator, screening: BubbleScreening, sigma: number, cell: number): void {
  const samples = [...screening.samples].filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y) && Number.isFinite(p.t)).sort((a, b) => a.t - b.t);
  const intervals = samples.slice(1).map((p, i) => p.t - samples[i].t);
  const last = samples.length > 0 ? samples[samples.length - 1].t : 0;
  const lastWeight =
    screening.durationMs !== null && screening.durationMs !== undefined && screening.durationMs > last ? screening.durationMs - last : median(intervals);
  let dwell = acc.dwellBySigma.get(sigma);
  if (!dwell) acc.dwellBySigma.set(sigma, (dwell = new Map()));
  const visited = new Set<number>();
  samples.forEach((p, i) => {
    const weight = i < intervals.length ? intervals[i] : lastWeight;
    if (p.x < 0 || p.y < 0 || p.x >= acc.width || p.y >= acc.height) {
      acc.offImageMs += weight;
      return;
    }
    const index = Math.floor(p.y / cell) * acc.columns + Math.floor(p.x / cell);
    dwell.set(index, (dwell.get(index) ?? 0) + weight);
    acc.dwellMs += weight;
    visited.add(index);
  });
  acc.samples += samples.length;
  acc.screenings++;
  acc.observers.add(screening.observer);
  acc.coverageSum += revealedShare(visited, acc.columns, acc.rows, screening.radius / cell);
}

/** Share of the grid within `radius` cells of a visited cell (the window's disk around each sample). */
function revealedShare(visited: Set<number>, columns: number, rows: number, radius: number): number {
  if (visited.size === 0) return 0;
  const revealed = new Uint8Array(columns * rows);
  const reach = Math.floor(radius);
  for (const index of visited) {
    const cx = index % columns;
    const cy = Math.floor(index / columns);
    for (let dy = -reach; dy <= reach; dy++) {
      const y = cy + dy;
      if (y < 0 || y >= rows) continue;
      const span = Math.floor(Math.sqrt(Math.max(0, radius * radius - dy * dy)));
      for (let x = Math.max(0, cx - span); x <= Math.min(columns - 1, cx + span); x++) revealed[y * columns + x] = 1;
    }
  }
  let count = 0;
  for (const v of revealed) count += v;
  return count / revealed.length;
}

/** Separable Gaussian blur of a columns × rows grid (σ in cells), zero outside, truncated at 3σ. */
export function gaussianBlur(grid: Float64Array, columns: number, rows: number, sigmaCells: number): Float64Array {
  if (!(sigmaCells > 0)) return Float64Array.from(grid);
  const half = Math.ceil(3 * sigmaCells);
  const kernel = Float64Array.from({ length: 2 * half + 1 }, (_, k) => Math.exp(-((k - half) ** 2) / (2 * sigmaCells * sigmaCells)));
  const total = kernel.reduce((a, b) => a + b, 0);
  kernel.forEach((v, k) => (kernel[k] = v / total));
  const horizontal = new Float64Array(grid.length);
  for (let y = 0; y < rows; y++)
    for (let x = 0; x < columns; x++) {
      const v = grid[y * columns + x];
      if (v === 0) continue;
      for (let k = -half; k <= half; k++) {
        const tx = x + k;
        if (tx >= 0 && tx < columns) horizontal[y * columns + tx] += v * kernel[k + half];
      }
    }
  const out = new Float64Array(grid.length);
  for (let y = 0; y < rows; y++)
    for (let x = 0; x < columns; x++) {
      const v = horizontal[y * columns + x];
      if (v === 0) continue;
      for (let k = -half; k <= half; k++) {
        const ty = y + k;
        if (ty >= 0 && ty < rows) out[ty * columns + x] += v * kernel[k + half];
      }
    }
  return out;
}

function finishMedia(acc: MediaAccumulator, cell: number): BubbleMediaResult {
  const smoothed = new Float64Array(acc.columns * acc.rows);
  let sigmaWeighted = 0;
  let sigmaWeight = 0;
  for (const [sigma, dwell] of acc.dwellBySigma) {
    const grid = new Float64Array(acc.columns * acc.rows);
    for (const [index, weight] of dwell) grid[index] += weight;
    const blurred = gaussianBlur(grid, acc.columns, acc.rows, sigma / cell);
    for (let k = 0; k < blurred.length; k++) smoothed[k] += blurred[k];
    const mass = [...dwell.values()].reduce((a, b) => a + b, 0);
    sigmaWeighted += sigma * mass;
    sigmaWeight += mass;
  }
  let best = -1;
  for (let k = 0; k < smoothed.length; k++) if (smoothed[k] > 0 && (best < 0 || smoothed[k] > smoothed[best])) best = k;
  const peak = best < 0 ? null : { x: ((best % acc.columns) + 0.5) * cell, y: (Math.floor(best / acc.columns) + 0.5) * cell };
  return {
    stimulus: acc.stimulus,
    media: acc.media,
    width: acc.width,
    height: acc.height,
    screenings: acc.screenings,
    observers: acc.observers.size,
    sigmaPx: sigmaWeight > 0 ? sigmaWeighted / sigmaWeight : 0,
    cellPx: cell,
    totalDwellMs: acc.dwellMs,
    meanDwellMs: acc.dwellMs / acc.screenings,
    offImageDwellMs: acc.offImageMs,
    meanSamples: acc.samples / acc.screenings,
    coverage: acc.coverageSum / acc.screenings,
    peak,
    heatmap: displayGrid(smoothed, acc.columns, acc.rows, cell, best < 0 ? 0 : smoothed[best]),
  };
}

/** Blocks of whole cells, at most DISPLAY_COLUMNS across, mean density scaled by the peak cell. */
function displayGrid(grid: Float64Array, columns: number, rows: number, cell: number, peak: number): BubbleHeatmap {
  const factor = Math.max(1, Math.ceil(columns / DISPLAY_COLUMNS));
  const outColumns = Math.ceil(columns / factor);
  const outRows = Math.ceil(rows / factor);
  const values: number[] = [];
  for (let by = 0; by < outRows; by++)
    for (let bx = 0; bx < outColumns; bx++) {
      let sum = 0;
      let n = 0;
      for (let y = by * factor; y < Math.min(rows, (by + 1) * factor); y++)
        for (let x = bx * factor; x < Math.min(columns, (bx + 1) * factor); x++) {
          sum += grid[y * columns + x];
          n++;
        }
      values.push(peak > 0 ? sum / n / peak : 0);
    }
  return { columns: outColumns, rows: outRows, blockPx: factor * cell, values };
}
