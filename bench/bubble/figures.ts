/** Shapes and statistics shared by the bench page (conditions.ts) and the node driver (run.ts). No pixi here. */

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

export function figures(samples: number[]): CostFigures {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return {
    frames: samples.length,
    meanMs: samples.reduce((a, b) => a + b, 0) / samples.length,
    medianMs: at(0.5),
    p95Ms: at(0.95),
  };
}

