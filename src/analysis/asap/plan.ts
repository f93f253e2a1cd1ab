import { asapPosterior, runAsap, type AsapRandom, type Pair } from './asap.js';

/**
 * A participant's comparisons in an adaptive pair-comparison job (design `asap`, docs/adaptive.md): ASAP's batch
 * mode for every content, within the participant's budget. The server builds each arrival's playlist with it
 * (server/adaptive/arrival.ts), and bench/adaptive/server.ts simulates the same arrivals.
 *
 * - Each content's counts are the comparisons judged so far (observed) plus those handed out and not judged yet
 *   (pending: running sessions). A pending comparison is counted as won by the side the observed posterior
 *   favours (lower index on a tie): the "believer" of batch Bayesian optimisation (Ginsbourger, Le Riche and
 *   Carraro 2010, "kriging believer"). Without it, every participant who arrives before the previous one's answers
 *   are judged would get the very same batch. It steers the choice only: results never count it.
 * - Each content's batch is the reference's (runAsap(M).batch: the minimum spanning tree of 1/gain, or a random
 *   tree while the content has fewer than n − 1 comparisons).
 * - The budget goes to the contents in turn, one batch at a time, to the content with the fewest comparisons so far
 *   (judged, pending and planned here; ties to the lower index): with equal contents every participant gives one
 *   batch to each, and a budget that is not a whole number of batches tops up the least measured. The batch taken is
 *   added to that content's counts as believed and its next batch computed, until the budget is spent. A last batch
 *   larger than what is left is cut to its largest-gain pairs (the batch is listed largest gain first).
 *   (Giving the budget instead to the content whose batch promises the most information per comparison was tried:
 *   on bench:adaptive's wide ladder, 60 participants of 70 comparisons, its RMSE was 0.69–0.77 JOD against 0.48–0.50
 *   in turn; the gains of different contents do not compare.)
 */

export interface ContentCounts {
  /** Conditions of the content. */
  n: number;
  /** Judged comparisons, row-major n × n: wins[i·n + j] = times i was preferred to j (non-negative integers). */
  wins: ArrayLike<number>;
  /** Comparisons handed out and not judged yet, per unordered pair, at [min·n + max] (non-negative integers). */
  pending: ArrayLike<number>;
}

export interface PlannedComparison {
  /** Index of the content in the input. */
  content: number;
  /** The two conditions, [smaller, larger]: which is shown left is decided by `orientComparisons`. */
  pair: Pair;
}

/** Adds the believed outcome of one more comparison of (i, j) to a count matrix. */
function believe(counts: Float64Array, mean: ArrayLike<number>, n: number, i: number, j: number, times = 1): void {
  const [winner, loser] = mean[j] > mean[i] ? [j, i] : [i, j];
  counts[winner * n + loser] += times;
}

/** The comparisons a participant with `budget` comparisons should make, in the order they were chosen. */
export function planComparisons(contents: readonly ContentCounts[], budget: number, random: AsapRandom): PlannedComparison[] {
  const states = contents.map(({ n, wins, pending }) => {
    const counts = Float64Array.from(wins);
    const { mean } = asapPosterior(counts);
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) if (pending[i * n + j] > 0) believe(counts, mean, n, i, j, pending[i * n + j]);
    return { n, counts, mean, total: counts.reduce((a, b) => a + b, 0) };
  });
  const planned: PlannedComparison[] = [];
  while (planned.length < budget) {
    let next = -1;
    for (let c = 0; c < states.length; c++) if (states[c].n >= 2 && (next < 0 || states[c].total < states[next].total)) next = c;
    if (next < 0) break;
    const state = states[next];
    const batch = runAsap(state.counts, { random }).batch;
    if (batch.length === 0) {
      state.n = 0; // nothing left to gain here (every pair skipped): the other contents go on
      continue;
    }
    for (const [i, j] of batch.slice(0, budget - planned.length)) {
      planned.push({ content: next, pair: [i, j] });
      believe(state.counts, state.mean, state.n, i, j);
      state.total += 1;
    }
  }
  return planned;
}

/**
 * Which condition of each comparison is shown first (left, or first in time): balanced over the participant's
 * comparisons, condition by condition. Each comparison puts first the one of its two conditions shown first less
 * often so far in this list; a tie is drawn at random. Returns [first, second] per comparison.
 */
export function orientComparisons(planned: readonly PlannedComparison[], random: AsapRandom): Pair[] {
  const firsts = new Map<string, number>();
  const key = (content: number, condition: number) => `${content}:${condition}`;
  return planned.map(({ content, pair: [i, j] }) => {
    const fi = firsts.get(key(content, i)) ?? 0;
    const fj = firsts.get(key(content, j)) ?? 0;
    const iFirst = fi < fj || (fi === fj && random.next() < 0.5);
    const first = iFirst ? i : j;
    firsts.set(key(content, first), (firsts.get(key(content, first)) ?? 0) + 1);
    return iFirst ? [i, j] : [j, i];
  });
}

/** An adaptive job's design as the report states it (report.json `design`). */
export interface AdaptiveDesignSummary {
  mode: 'asap';
  comparisonsPerParticipant: number;
  contents: number;
  /** Conditions per content: the smallest and the largest count. */
  conditions: { min: number; max: number };
}

/** The report's methods line for an adaptive design. */
export function adaptiveDesignMethod(d: AdaptiveDesignSummary): string {
  const conditions = d.conditions.min === d.conditions.max ? `${d.conditions.min}` : `${d.conditions.min}–${d.conditions.max}`;
  return (
    `Design: adaptive pair comparison (ASAP batch mode, Mikhailiuk et al. 2020): each participant's ${d.comparisonsPerParticipant} ` +
    `comparisons were chosen when they arrived, from the included answers so far, among ${d.contents} contents of ${conditions} conditions; ` +
    'pairs are therefore not equally often compared, and the scale is fitted as for any pair comparison.'
  );
}
