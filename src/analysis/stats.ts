/** Small statistics shared by the estimators; distributions come from @stdlib, never hand-written. */
import chisquareQuantile from '@stdlib/stats-base-dists-chisquare-quantile';
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';

/** sureal's 95 % normal CI multiplier (rounded z of 0.975, as sureal writes it). */
export const SUREAL_Z95 = 1.95996;

export type Interval = [number, number];

export { chisquareQuantile, normalCdf, normalQuantile, tCdf, tQuantile };

export function mean(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i];
  return values.length === 0 ? NaN : sum / values.length;
}

/** Standard deviation with `ddof` degrees of freedom removed (numpy's convention: 0 = population, 1 = sample). */
export function sd(values: ArrayLike<number>, ddof: 0 | 1): number {
  const n = values.length;
  if (n - ddof <= 0) return NaN;
  const m = mean(values);
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (values[i] - m) ** 2;
  return Math.sqrt(ss / (n - ddof));
}

/** Pearson's r; NaN when either side is constant or shorter than 2. */
export function pearson(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const n = x.length;
  if (n < 2) return NaN;
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i] - mx;
    const dy = y[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return NaN;
  // Clamped like scipy: rounding may take |r| a hair past 1.
  return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
}

/**
 * Ranks 1..n, ties given their average rank (scipy's rankdata 'average'). Values within a relative 1e-12 of each
 * other are ties: means of the same votes summed in another order differ in the last bits (0.1 + 0.2 ≠ 0.3), and
 * those ties must not be broken by summation order. Rating means are multiples of 1/n far above that resolution.
 */
export function averageRanks(values: ArrayLike<number>): Float64Array {
  const order = Array.from({ length: values.length }, (_, i) => i).sort((a, b) => values[a] - values[b]);
  const ranks = new Float64Array(values.length);
  const tied = (a: number, b: number) => Math.abs(a - b) <= TIE_TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b));
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && tied(values[order[j + 1]], values[order[i]])) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

const TIE_TOLERANCE = 1e-12;

/** Spearman's ρ: Pearson's r of the average ranks (scipy's spearmanr). */
export function spearman(x: ArrayLike<number>, y: ArrayLike<number>): number {
  return pearson(averageRanks(x), averageRanks(y));
}

/**
 * Quantile of sorted values.
 * 'hazen': MATLAB's quantile/prctile (cumulative probabilities (i − 0.5)/n, linear in between, clamped), used
 *   where we follow pwcmp; 'type7': R's and numpy's default, used where we follow R's MLDS.
 */
export function quantileSorted(sorted: ArrayLike<number>, p: number, method: 'hazen' | 'type7'): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const position = method === 'hazen' ? n * p - 0.5 : (n - 1) * p;
  if (position <= 0) return sorted[0];
  if (position >= n - 1) return sorted[n - 1];
  const lo = Math.floor(position);
  const frac = position - lo;
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

/** Central 95 % percentile interval of a sample (ignores NaN). */
export function percentileInterval(sample: ArrayLike<number>, method: 'hazen' | 'type7'): Interval {
  const sorted = Float64Array.from(sample).filter((v) => !Number.isNaN(v)).sort();
  return [quantileSorted(sorted, 0.025, method), quantileSorted(sorted, 0.975, method)];
}

/** Standard normal density. */
export function normalPdf(x: number): number {
  return Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
}

/** log Φ(x) and φ(x)/Φ(x) from one evaluation of Φ (the paired scalers call this in their inner loop). */
export function logCdfAndHazard(x: number, out: { log: number; hazard: number }): void {
  if (x > -30) {
    const cdf = normalCdf(x, 0, 1);
    out.log = Math.log(cdf);
    out.hazard = normalPdf(x) / cdf;
    return;
  }
  out.log = logNormalCdf(x);
  out.hazard = normalHazardLower(x);
}

/** log Φ(x), accurate far in the lower tail where Φ underflows (asymptotic series below −30). */
export function logNormalCdf(x: number): number {
  if (x > -30) return Math.log(normalCdf(x, 0, 1));
  const x2 = x * x;
  return -0.5 * x2 - Math.log(-x) - 0.5 * Math.log(2 * Math.PI) + Math.log1p(-1 / x2 + 3 / (x2 * x2) - 15 / (x2 * x2 * x2));
}

/** φ(x)/Φ(x) (inverse Mills ratio), finite far in the lower tail. */
export function normalHazardLower(x: number): number {
  if (x > -30) return normalPdf(x) / normalCdf(x, 0, 1);
  const x2 = x * x;
  return -x / (1 - 1 / x2 + 3 / (x2 * x2) - 15 / (x2 * x2 * x2));
}
