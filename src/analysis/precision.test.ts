import { describe, expect, it } from 'vitest';
import { asapPosterior } from './asap/asap.js';
import { JOD_PER_ASAP_UNIT, meanHalfWidth, pairedPrecision, ratingPrecision, type ScoreMoments } from './precision.js';
import { statsOf } from './rating/mos.js';

const momentsOf = (scores: number[]): ScoreMoments => ({
  n: scores.length,
  sum: scores.reduce((a, b) => a + b, 0),
  squares: scores.reduce((a, b) => a + b * b, 0),
});

describe('stopping for precision', () => {
  it("a rating stimulus's half-width is the Student-t interval of its MOS", () => {
    // 1..5: mean 3, s = 1.5811, t(0.975, 4) = 2.7764 → 1.9632
    expect(meanHalfWidth(momentsOf([1, 2, 3, 4, 5]), 0.95)).toBeCloseTo(1.96324, 5);
    const scores = [5, 4, 4, 3, 5, 4, 2, 4, 5, 3, 4, 4];
    const stats = statsOf(scores);
    expect(meanHalfWidth(momentsOf(scores), 0.95)).toBeCloseTo(stats.ci95_t[1] - stats.mos, 12);
    // a 90 % interval is narrower
    expect(meanHalfWidth(momentsOf(scores), 0.9)!).toBeLessThan(meanHalfWidth(momentsOf(scores), 0.95)!);
    expect(meanHalfWidth(momentsOf([4]), 0.95)).toBeNull();
  });

  it('a rating job reaches its target only when every expected stimulus has', () => {
    const moments = new Map([
      ['a', momentsOf([4, 4, 4, 5, 4, 4, 4, 5, 4, 4])],
      ['b', momentsOf([1, 5, 1, 5])],
    ]);
    const precision = ratingPrecision(moments, ['a', 'b', 'c'], { ciHalfWidth: 0.5 });
    expect(precision.scale).toBe('MOS');
    expect(precision.level).toBe(0.95);
    expect(precision.total).toBe(3);
    expect(precision.stimuli.map((s) => s.stimulus)).toEqual(['c', 'b', 'a']); // no interval first, then widest
    expect(precision.stimuli.map((s) => s.reached)).toEqual([false, false, true]);
    expect(precision.reached).toBe(1);
    expect(precision.allReached).toBe(false);
    expect(ratingPrecision(new Map([['a', moments.get('a')!]]), ['a'], { ciHalfWidth: 0.5 }).allReached).toBe(true);
    expect(ratingPrecision(new Map(), [], { ciHalfWidth: 0.5 }).allReached).toBe(false);
  });

  it("pair intervals are ASAP's posterior in JOD, and narrow with comparisons", () => {
    const few = [
      [0, 3, 4],
      [1, 0, 3],
      [0, 1, 0],
    ];
    const many = few.map((row) => row.map((c) => c * 10));
    const posterior = asapPosterior(few);
    const precision = pairedPrecision([{ stimuli: ['x', 'y', 'z'], wins: few }], { ciHalfWidth: 1 });
    const x = precision.stimuli.find((s) => s.stimulus === 'x')!;
    expect(x.halfWidth).toBeCloseTo(1.959964 * posterior.std[0]! * JOD_PER_ASAP_UNIT, 5);
    expect(x.n).toBe(3 + 4 + 1);
    const centre = (posterior.mean[0]! + posterior.mean[1]! + posterior.mean[2]!) / 3;
    expect(x.estimate).toBeCloseTo((posterior.mean[0]! - centre) * JOD_PER_ASAP_UNIT, 10);
    const sharper = pairedPrecision([{ stimuli: ['x', 'y', 'z'], wins: many }], { ciHalfWidth: 1 });
    for (const name of ['x', 'y', 'z']) {
      expect(sharper.stimuli.find((s) => s.stimulus === name)!.halfWidth!).toBeLessThan(precision.stimuli.find((s) => s.stimulus === name)!.halfWidth!);
    }
    expect(sharper.scale).toBe('JOD');
  });

  it('a stimulus never compared does not reach the target', () => {
    const precision = pairedPrecision([{ stimuli: ['x', 'y', 'z'], wins: [[0, 50, 0], [50, 0, 0], [0, 0, 0]] }], { ciHalfWidth: 5 });
    expect(precision.stimuli.find((s) => s.stimulus === 'z')!.reached).toBe(false);
    expect(precision.stimuli.find((s) => s.stimulus === 'x')!.reached).toBe(true);
    expect(precision.allReached).toBe(false);
  });
});
