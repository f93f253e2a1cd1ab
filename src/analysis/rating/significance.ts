/**
 * Pairwise significance between conditions (or stimuli, when no condition is declared): Welch's unequal-variance
 * t-test on the two groups' votes (@stdlib/stats-ttest2), two-sided, with Holm's step-down correction for the
 * number of pairs (@stdlib/stats-padjust), which holds the family-wise error rate at 5 % like Bonferroni's and
 * rejects at least as often. Votes are taken as independent, as the MOS CIs take them.
 */
import padjust from '@stdlib/stats-padjust';
import ttest2 from '@stdlib/stats-ttest2';
import type { RatingData } from './rating-data.js';

export const SIGNIFICANCE_ALPHA = 0.05;
/** Above this many groups (4,950 pairs) the table would be unreadable and Holm's correction toothless: not tested. */
export const MAX_TESTED_GROUPS = 100;

export interface PairwiseTest {
  a: string;
  b: string;
  meanA: number;
  meanB: number;
  /** meanA − meanB. */
  difference: number;
  t: number;
  df: number;
  /** Two-sided p of Welch's t-test, then after Holm's correction over all pairs. */
  p: number;
  pHolm: number;
  /** pHolm < 0.05. */
  significant: boolean;
}

export interface PairwiseSignificance {
  /** What was compared: the declared conditions, or the stimuli when there are none. */
  groupedBy: 'condition' | 'stimulus';
  test: string;
  correction: string;
  /** Groups compared; none are tested above MAX_TESTED_GROUPS. */
  groups: number;
  pairs: PairwiseTest[];
}

/** The votes of each condition (or each stimulus), in order of first appearance. */
function groupVotes(data: RatingData): { groupedBy: PairwiseSignificance['groupedBy']; groups: Map<string, number[]> } {
  const byCondition = data.stimulusInfo.some((info) => info.condition !== null);
  const groups = new Map<string, number[]>();
  data.stimuli.forEach((stimulus, j) => {
    const name = byCondition ? data.stimulusInfo[j].condition : stimulus;
    if (name === null) return;
    const votes = groups.get(name) ?? [];
    for (let k = data.stimulusStart[j]; k < data.stimulusStart[j + 1]; k++) votes.push(data.score[k]);
    groups.set(name, votes);
  });
  return { groupedBy: byCondition ? 'condition' : 'stimulus', groups };
}

export function pairwiseSignificance(data: RatingData): PairwiseSignificance {
  const { groupedBy, groups } = groupVotes(data);
  const names = groups.size > MAX_TESTED_GROUPS ? [] : [...groups.keys()];
  const raw: Omit<PairwiseTest, 'pHolm' | 'significant'>[] = [];
  for (let i = 0; i < names.length; i++)
    for (let j = i + 1; j < names.length; j++) {
      const x = groups.get(names[i])!;
      const y = groups.get(names[j])!;
      const meanA = x.reduce((s, v) => s + v, 0) / x.length;
      const meanB = y.reduce((s, v) => s + v, 0) / y.length;
      // Welch needs two votes a side and some spread; otherwise the test is undefined (p = NaN, never significant).
      const spread = new Set(x).size > 1 || new Set(y).size > 1;
      const result = x.length >= 2 && y.length >= 2 && spread ? ttest2(x, y, { variance: 'unequal', alternative: 'two-sided' }) : null;
      raw.push({ a: names[i], b: names[j], meanA, meanB, difference: meanA - meanB, t: result?.statistic ?? NaN, df: result?.df ?? NaN, p: result?.pValue ?? NaN });
    }
  const defined = raw.filter((r) => !Number.isNaN(r.p));
  const adjusted = defined.length > 0 ? padjust(defined.map((r) => r.p), 'holm') : [];
  const holm = new Map(defined.map((r, k) => [r, adjusted[k]]));
  return {
    groupedBy,
    test: 'Welch’s two-sample t-test (unequal variances), two-sided, on the votes of each group',
    groups: groups.size,
    correction: `Holm’s step-down correction over the ${defined.length} pairs tested; significant when the adjusted p < ${SIGNIFICANCE_ALPHA}`,
    pairs: raw.map((r) => {
      const pHolm = holm.get(r) ?? NaN;
      return { ...r, pHolm, significant: pHolm < SIGNIFICANCE_ALPHA };
    }),
  };
}
