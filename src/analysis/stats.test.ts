import { describe, expect, it } from 'vitest';
import { averageRanks, spearman } from './stats.js';

describe('ranks and Spearman', () => {
  it('gives ties their average rank, also when summation order moved the last bits', () => {
    expect(Array.from(averageRanks([3, 1, 3, 2]))).toEqual([3.5, 1, 3.5, 2]);
    // 0.1 + 0.2 = 0.30000000000000004: the same mean summed in another order.
    expect(Array.from(averageRanks([0.1 + 0.2, 0.3, 0.5]))).toEqual([1.5, 1.5, 3]);
    expect(Array.from(averageRanks([0.3, 0.1 + 0.2, 0.5]))).toEqual([1.5, 1.5, 3]);
  });

  it('Spearman ρ with tied means equals scipy.stats.spearmanr on the exact values', () => {
    // spearmanr([0.3, 0.3, 0.5], [1, 2, 3]) = 0.8660254037844387 (ranks 1.5, 1.5, 3).
    expect(spearman([0.1 + 0.2, 0.3, 0.5], [1, 2, 3])).toBeCloseTo(0.8660254037844387, 15);
    expect(spearman([0.3, 0.1 + 0.2, 0.5], [1, 2, 3])).toBeCloseTo(0.8660254037844387, 15);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBe(-1);
  });
});
