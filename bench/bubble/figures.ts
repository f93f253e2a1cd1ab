/** Shapes and statistics shared by the bench page (conditions.ts) and the node driver (run.ts). No pixi here. */
import { summary } from '../shared/statistics';

export interface Point {
  x: number;
  y: number;
}

export interface CostFigures {
  frames: number;
  meanMs: number;
  medianMs: number;
  p95Ms: number;
}

export interface Setup {
  width: number;
  height: number;
  image: string;
  sigma: number;
  radius: number;
}

/** Mean, median and p95 of frame costs: the shared summary (bench/shared/statistics.ts, type 7 quantiles), unrounded. */
export function figures(samples: number[]): CostFigures {
  const s = summary(samples, null);
  return { frames: s.n, meanMs: s.mean, medianMs: s.p50, p95Ms: s.p95 };
}

