import { describe, expect, it } from 'vitest';
import { createRandom } from '../random.js';
import { runAsap } from './asap.js';
import { orientComparisons, planComparisons, type ContentCounts } from './plan.js';

/** A content's counts: `wins` as rows, nothing pending unless given. */
function content(wins: number[][], pending: Array<[number, number, number]> = []): ContentCounts {
  const n = wins.length;
  const p = new Float64Array(n * n);
  for (const [i, j, k] of pending) p[Math.min(i, j) * n + Math.max(i, j)] = k;
  return { n, wins: Float64Array.from(wins.flat()), pending: p };
}

/** 5 conditions on a ladder, each adjacent pair compared 6 times (5–1 for the better). */
const ladder = () => {
  const w = Array.from({ length: 5 }, () => new Array(5).fill(0));
  for (let i = 0; i < 4; i++) [w[i]![i + 1], w[i + 1]![i]] = [5, 1];
  return w;
};

describe('planComparisons (an adaptive job participant\'s comparisons)', () => {
  it('with nothing pending and a budget of one batch, is the reference batch itself', () => {
    const wins = ladder();
    const planned = planComparisons([content(wins)], 4, createRandom(3));
    expect(planned.map((p) => p.pair)).toEqual(runAsap(wins, { random: createRandom(3) }).batch);
    expect(planned.every((p) => p.content === 0)).toBe(true);
  });

  it('believes what is handed out: a batch handed out many times is not handed out again as it is', () => {
    const wins = ladder();
    const batch = runAsap(wins, { random: createRandom(3) }).batch;
    const again = planComparisons([content(wins, batch.map(([i, j]) => [i, j, 40]))], 4, createRandom(3)).map((p) => p.pair);
    expect(again).toHaveLength(4);
    expect(again).not.toEqual(batch);
    // Each pair believed 40 more times has a gain near nothing: the new tree avoids most of them.
    const repeated = again.filter(([i, j]) => batch.some(([a, b]) => a === i && b === j));
    expect(repeated.length).toBeLessThan(4);
  });

  it('gives the budget to the least measured content first: one measured 500 times over gets nothing while another is unknown', () => {
    const known = Array.from({ length: 4 }, (_, i) => Array.from({ length: 4 }, (_, j) => (i === j ? 0 : i < j ? 450 : 50)));
    const unknown = Array.from({ length: 4 }, () => new Array(4).fill(0));
    const planned = planComparisons([content(known), content(unknown)], 6, createRandom(1));
    expect(planned).toHaveLength(6);
    expect(planned.every((p) => p.content === 1)).toBe(true);
  });

  it('keeps to the budget, a batch to each content in turn, cutting the last batch to its largest gains', () => {
    const contents = [content(ladder()), content(ladder())];
    expect(planComparisons(contents, 3, createRandom(2))).toHaveLength(3);
    const many = planComparisons(contents, 20, createRandom(2));
    expect(many).toHaveLength(20);
    // 4, 4, 4, 4, then 4 more for the first: 12 and 8.
    expect([many.filter((p) => p.content === 0).length, many.filter((p) => p.content === 1).length]).toEqual([12, 8]);
    expect(many.slice(0, 8).map((p) => p.content)).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    const first = planComparisons([content(ladder())], 2, createRandom(4)).map((p) => p.pair);
    expect(first).toEqual(runAsap(ladder(), { random: createRandom(4) }).batch.slice(0, 2));
  });
});

describe('orientComparisons', () => {
  it('shows each condition first about as often as second', () => {
    const planned = [];
    for (let r = 0; r < 5; r++) for (let i = 0; i < 6; i++) for (let j = i + 1; j < 6; j++) planned.push({ content: 0, pair: [i, j] as [number, number] });
    const oriented = orientComparisons(planned, createRandom(9));
    for (let c = 0; c < 6; c++) {
      const first = oriented.filter(([a]) => a === c).length;
      const second = oriented.filter(([, b]) => b === c).length;
      expect(first + second).toBe(25);
      expect(Math.abs(first - second)).toBeLessThanOrEqual(3);
    }
    // The same pairs, each in one of its two orders.
    expect(oriented.map(([a, b]) => [Math.min(a, b), Math.max(a, b)])).toEqual(planned.map((p) => p.pair));
  });
});
