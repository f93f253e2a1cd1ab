/**
 * What observers looked at of a 3D object in inspect mode (docs/3d-objects.md): from the camera poses posted with
 * each answer, per stimulus, the inspection time, the viewpoint coverage (time per azimuth × elevation cell) and
 * the zoom distribution. Each pose weighs the time until the next pose of the same play, the last one of a play
 * the play's median interval (a frame), as the bubble dwell maps weigh mouse samples.
 */

/** The camera poses of one answer, as posted (contract/payloads.ts ViewsRecord). */
export interface ViewsInput {
  mode: 'turntable' | 'inspect';
  samples: ReadonlyArray<{ play: number; t: number; az: number; el: number; dist: number }>;
}

/** Azimuth cells: 12 of 30° over [0°, 360°) (the azimuth wrapped); elevation cells: 12 of 15° over [−90°, 90°]. */
export const VIEW_CELLS = { azimuthDeg: 30, elevationDeg: 15 } as const;
const AZ_CELLS = 360 / VIEW_CELLS.azimuthDeg;
const EL_CELLS = 180 / VIEW_CELLS.elevationDeg;

/** One answer's inspection: how long, how far the camera turned, and the time spent per cell and per distance. */
export interface Inspection {
  /** Sum of the poses' weights, ms. */
  inspectMs: number;
  /** Largest minus smallest azimuth (unwrapped, so a full turn counts 360°), at most 360°. */
  azimuthRangeDeg: number;
  /** Largest minus smallest elevation, degrees. */
  elevationRangeDeg: number;
  /** Time per cell, ms, row-major: index = elevation cell × 12 + azimuth cell. */
  cellMs: Float64Array;
  /** Each pose's distance and weight (ms). */
  zoom: Array<{ dist: number; ms: number }>;
}

const median = (values: number[]) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export function inspectionOf(views: ViewsInput): Inspection {
  const cellMs = new Float64Array(AZ_CELLS * EL_CELLS);
  const zoom: Inspection['zoom'] = [];
  const plays = new Map<number, ViewsInput['samples'][number][]>();
  for (const s of views.samples) {
    const play = plays.get(s.play);
    if (play) play.push(s);
    else plays.set(s.play, [s]);
  }
  let inspectMs = 0;
  let azMin = Infinity;
  let azMax = -Infinity;
  let elMin = Infinity;
  let elMax = -Infinity;
  for (const samples of plays.values()) {
    const ordered = [...samples].sort((a, b) => a.t - b.t);
    const intervals = ordered.slice(1).map((s, i) => s.t - ordered[i]!.t);
    const last = median(intervals);
    ordered.forEach((s, i) => {
      const ms = i + 1 < ordered.length ? intervals[i]! : last;
      inspectMs += ms;
      azMin = Math.min(azMin, s.az);
      azMax = Math.max(azMax, s.az);
      elMin = Math.min(elMin, s.el);
      elMax = Math.max(elMax, s.el);
      const az = Math.min(AZ_CELLS - 1, Math.floor((((s.az % 360) + 360) % 360) / VIEW_CELLS.azimuthDeg));
      const el = Math.min(EL_CELLS - 1, Math.max(0, Math.floor((s.el + 90) / VIEW_CELLS.elevationDeg)));
      cellMs[el * AZ_CELLS + az]! += ms;
      zoom.push({ dist: s.dist, ms });
    });
  }
  const any = views.samples.length > 0;
  return { inspectMs, azimuthRangeDeg: any ? Math.min(360, azMax - azMin) : 0, elevationRangeDeg: any ? elMax - elMin : 0, cellMs, zoom };
}

/** Time-weighted quantile of the distances (the smallest distance whose cumulative weight reaches q). */
function weightedQuantile(points: ReadonlyArray<{ dist: number; ms: number }>, q: number): number | null {
  const sorted = [...points].filter((p) => p.ms > 0).sort((a, b) => a.dist - b.dist);
  const total = sorted.reduce((n, p) => n + p.ms, 0);
  if (total === 0) return null;
  let cumulative = 0;
  for (const p of sorted) {
    cumulative += p.ms;
    if (cumulative >= q * total - 1e-9) return p.dist;
  }
  return sorted.at(-1)!.dist;
}

export interface StimulusViews {
  stimulus: string;
  /** Answers with inspect-mode poses, and their observers. */
  trials: number;
  observers: number;
  inspectMs: { mean: number; median: number; min: number };
  azimuthRangeDeg: { median: number; min: number };
  /** Distance (multiple of the fitted distance), time-weighted over every answer: 10th, 50th, 90th percentiles. */
  zoom: { p10: number | null; median: number | null; p90: number | null; min: number; max: number };
  /** Time per cell summed over the answers, and its share of the stimulus's inspection time; cells never seen left out. */
  coverage: Array<{ azimuthDeg: number; elevationDeg: number; ms: number; share: number }>;
  /** Share of the 144 cells seen for any time. */
  cellsSeenShare: number;
}

export interface ViewsResult {
  cells: typeof VIEW_CELLS;
  stimuli: StimulusViews[];
}

/** Collects inspect-mode poses answer by answer (one pass over a job's answers), then summarises per stimulus. */
export class ViewsAccumulator {
  private readonly stimuli = new Map<string, { inspections: Inspection[]; observers: Set<string> }>();

  add(stimulus: string, observer: string, views: ViewsInput): void {
    if (views.mode !== 'inspect' || views.samples.length === 0) return;
    let entry = this.stimuli.get(stimulus);
    if (!entry) this.stimuli.set(stimulus, (entry = { inspections: [], observers: new Set() }));
    entry.inspections.push(inspectionOf(views));
    entry.observers.add(observer);
  }

  result(): ViewsResult | null {
    if (this.stimuli.size === 0) return null;
    const stimuli = [...this.stimuli].map(([stimulus, { inspections, observers }]): StimulusViews => {
      const times = inspections.map((i) => i.inspectMs);
      const ranges = inspections.map((i) => i.azimuthRangeDeg);
      const cellMs = new Float64Array(AZ_CELLS * EL_CELLS);
      for (const i of inspections) i.cellMs.forEach((ms, k) => (cellMs[k]! += ms));
      const total = cellMs.reduce((n, ms) => n + ms, 0);
      const coverage = [...cellMs].flatMap((ms, k) =>
        ms > 0 ? [{ azimuthDeg: (k % AZ_CELLS) * VIEW_CELLS.azimuthDeg, elevationDeg: Math.floor(k / AZ_CELLS) * VIEW_CELLS.elevationDeg - 90, ms, share: total > 0 ? ms / total : 0 }] : [],
      );
      const zoom = inspections.flatMap((i) => i.zoom);
      let min = Infinity;
      let max = -Infinity;
      for (const z of zoom) [min, max] = [Math.min(min, z.dist), Math.max(max, z.dist)];
      return {
        stimulus,
        trials: inspections.length,
        observers: observers.size,
        inspectMs: { mean: times.reduce((a, b) => a + b, 0) / times.length, median: median(times), min: Math.min(...times) },
        azimuthRangeDeg: { median: median(ranges), min: Math.min(...ranges) },
        zoom: { p10: weightedQuantile(zoom, 0.1), median: weightedQuantile(zoom, 0.5), p90: weightedQuantile(zoom, 0.9), min, max },
        coverage,
        cellsSeenShare: coverage.length / (AZ_CELLS * EL_CELLS),
      };
    });
    return { cells: VIEW_CELLS, stimuli: stimuli.sort((a, b) => (a.stimulus < b.stimulus ? -1 : a.stimulus > b.stimulus ? 1 : 0)) };
  }
}
