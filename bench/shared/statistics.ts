/**
 * The one quantile and the one summary every benchmark reports (issue 37), so that a p95 in one benchmark's JSON is
 * the same statistic as a p95 in another's. Re-exported by bench/shared/measure.ts, where the Node benchmarks import
 * it from; kept here, without Node imports, because bench:bubble's page (bench/bubble/figures.ts) runs in the
 * browser and measure.ts imports node:http.
 */

/**
 * The q-quantile (0 ≤ q ≤ 1) of values already sorted ascending, by linear interpolation between order statistics:
 * Hyndman & Fan's type 7, the default of R's quantile() and NumPy's percentile() (method "linear"). With n values
 * x[0] ≤ … ≤ x[n−1] and h = (n − 1)·q, it is x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]): the median of an even count is the
 * mean of the two middle values, quantile(1..100, 0.95) = 95.05. NaN when there are no values.
 */
export function quantileOfSorted(sorted: readonly number[], q: number): number {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile: q must be within [0, 1], got ${q}`);
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** The q-quantile of values in any order (type 7, see quantileOfSorted); the input is left as it is. */
export function quantile(values: readonly number[], q: number): number {
  return quantileOfSorted([...values].sort((a, b) => a - b), q);
}

export const round1 = (x: number) => Math.round(x * 10) / 10;

const roundTo = (x: number, digits: number | null) => (digits === null ? x : Math.round(x * 10 ** digits) / 10 ** digits);

export interface Summary {
  n: number;
  mean: number;
  /** Sample standard deviation (divides by n − 1); 0 for one value. */
  sd: number;
  min: number;
  /** Quantiles of type 7 (quantileOfSorted). */
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/**
 * Count, mean, sample SD, min, p50 / p95 / p99 (type 7) and max of values, each rounded to `digits` decimals
 * (default 1, the latency benchmarks' 0.1 ms; null: as computed). No values: n 0 and NaN for the rest (null in JSON).
 */
export function summary(values: readonly number[], digits: number | null = 1): Summary {
  const n = values.length;
  const sorted = [...values].sort((a, b) => a - b);
  // Loops, not Math.max(...values): a launch of 10,000 participants has more samples than the call stack takes.
  let sum = 0;
  for (const v of values) sum += v;
  const mean = n ? sum / n : Number.NaN;
  let squares = 0;
  for (const v of values) squares += (v - mean) ** 2;
  const sd = n === 0 ? Number.NaN : n === 1 ? 0 : Math.sqrt(squares / (n - 1));
  const r = (x: number) => roundTo(x, digits);
  return {
    n,
    mean: r(mean),
    sd: r(sd),
    min: r(n ? sorted[0]! : Number.NaN),
    p50: r(quantileOfSorted(sorted, 0.5)),
    p95: r(quantileOfSorted(sorted, 0.95)),
    p99: r(quantileOfSorted(sorted, 0.99)),
    max: r(n ? sorted[n - 1]! : Number.NaN),
  };
}
