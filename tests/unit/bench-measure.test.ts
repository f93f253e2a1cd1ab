/**
 * The benchmarks' shared statistics (bench/shared/measure.ts, defined in bench/shared/statistics.ts) and
 * bench:display's expected frame counts, against answers worked out by hand (and by R / NumPy for the quantiles).
 * Here rather than next to them in bench/: vitest's include (vite.config.ts) has no bench/** pattern.
 */
import { describe, expect, it } from 'vitest';
import { figures } from '../../bench/bubble/figures';
import { nominalRefreshes } from '../../bench/display/timing';
import { quantile, quantileOfSorted, summary } from '../../bench/shared/measure';

const oneTo100 = Array.from({ length: 100 }, (_, i) => i + 1);

describe('quantile (type 7, linear interpolation)', () => {
  it('gives the known answers', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile(oneTo100, 0.95)).toBeCloseTo(95.05, 10);
    expect(quantile(oneTo100, 0.99)).toBeCloseTo(99.01, 10);
    expect(quantile(oneTo100, 0.5)).toBe(50.5);
    expect(quantile(oneTo100, 0)).toBe(1);
    expect(quantile(oneTo100, 1)).toBe(100);
    // NumPy: np.percentile([15, 20, 35, 40, 50], 40) == 29.0; R: quantile(c(1, 3, 5, 7, 9, 11), 0.25) == 3.5.
    expect(quantile([15, 20, 35, 40, 50], 0.4)).toBeCloseTo(29, 10);
    expect(quantile([1, 3, 5, 7, 9, 11], 0.25)).toBeCloseTo(3.5, 10);
  });

  it('sorts a copy of its input, and quantileOfSorted reads sorted input as it is', () => {
    const values = [4, 1, 3, 2];
    expect(quantile(values, 0.5)).toBe(2.5);
    expect(values).toEqual([4, 1, 3, 2]);
    expect(quantileOfSorted([1, 2, 3, 4], 0.25)).toBeCloseTo(1.75, 10);
  });

  it('handles one value, no values and a q outside [0, 1]', () => {
    expect(quantile([7], 0.99)).toBe(7);
    expect(quantile([], 0.5)).toBeNaN();
    expect(() => quantile([1, 2], 1.5)).toThrow(RangeError);
    expect(() => quantile([1, 2], Number.NaN)).toThrow(RangeError);
  });
});

describe('summary', () => {
  const values = [2, 4, 4, 4, 5, 5, 7, 9];

  it('gives n, mean, sample SD, min, type-7 p50 / p95 / p99 and max', () => {
    const s = summary(values, null);
    expect(s.n).toBe(8);
    expect(s.mean).toBe(5);
    expect(s.sd).toBeCloseTo(Math.sqrt(32 / 7), 10);
    expect(s.min).toBe(2);
    expect(s.p50).toBe(4.5);
    expect(s.p95).toBeCloseTo(8.3, 10);
    expect(s.p99).toBeCloseTo(8.86, 10);
    expect(s.max).toBe(9);
  });

  it('rounds to 0.1 by default, to the digits asked for otherwise', () => {
    expect(summary(values)).toEqual({ n: 8, mean: 5, sd: 2.1, min: 2, p50: 4.5, p95: 8.3, p99: 8.9, max: 9 });
    expect(summary(values, 3).sd).toBe(2.138);
  });

  it('is NaN but for n on no values, SD 0 on one, and takes more values than the call stack', () => {
    const empty = summary([]);
    expect(empty.n).toBe(0);
    for (const key of ['mean', 'sd', 'min', 'p50', 'p95', 'p99', 'max'] as const) expect(empty[key]).toBeNaN();
    expect(summary([3])).toEqual({ n: 1, mean: 3, sd: 0, min: 3, p50: 3, p95: 3, p99: 3, max: 3 });
    const many = summary(Array.from({ length: 300_000 }, (_, i) => i));
    expect([many.min, many.max]).toEqual([0, 299_999]);
  });

  it('is what bench:bubble reports as its frame costs', () => {
    expect(figures([4, 1, 3, 2])).toEqual({ frames: 4, meanMs: 2.5, medianMs: 2.5, p95Ms: quantile([1, 2, 3, 4], 0.95) });
  });
});

describe("bench:display's expected frames (nominalRefreshes)", () => {
  it('is the nearest whole number of refreshes at the nominal rate, at least 1', () => {
    expect(nominalRefreshes(50, 165)).toBe(8); // 8.25
    expect(nominalRefreshes(50, 144)).toBe(7); // 7.2
    expect(nominalRefreshes(1000, 60)).toBe(60);
    expect(nominalRefreshes(1000 / 144, 144)).toBe(1);
    expect(nominalRefreshes(3000 / 165, 165)).toBe(3); // 3.0000000000000004
    expect(nominalRefreshes(1, 60)).toBe(1); // 0.06 frame: a step that exists is shown
    expect(nominalRefreshes(0, 60)).toBe(0);
  });

  it('rounds a half frame up (docs/timing.md)', () => {
    expect(nominalRefreshes(500, 165)).toBe(83); // 82.5
    expect(nominalRefreshes(2500 / 60, 60)).toBe(3); // 2.5 within float noise
    expect(nominalRefreshes(500 / 60, 60)).toBe(1); // 0.5
  });

  it("refuses a duration within 0.1 frame of a half, where the stage's count depends on its period's uncertainty", () => {
    expect(() => nominalRefreshes((2.45 * 1000) / 60, 60)).toThrow(RangeError);
    expect(() => nominalRefreshes((82.58 * 1000) / 165, 165)).toThrow(RangeError);
    expect(() => nominalRefreshes(500, 0)).toThrow(RangeError);
  });

  it("has an expectation for every duration of the bench's grid", () => {
    for (const hz of [60, 144, 165, 240]) {
      for (const ms of [1000 / hz, 3000 / hz, 50, 500, 1000, 10_000]) expect(() => nominalRefreshes(ms, hz)).not.toThrow();
    }
  });
});
