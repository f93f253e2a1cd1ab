import { asapPosterior, runAsap, type AsapRandom, type Pair } from './asap.js';

/**
 * A participant's comparisons in an adaptive pair-comparison job (design `asap`, docs/adaptive.md): ASAP's batch
 * mode for every content, within the participant's budget. The server builds each arrival's playlist with it, and
 * bench/adaptive simulates the same arrivals.
 *
 * - Each content's counts are the comparisons judged so far (observed) plus those handed out and not judged yet
 *   (pending: running sessions). A pending comparison is counted as won by the side the observed posterior
 *   favours (lower index on a tie): the "believer" of batch Bayesian optimisation (Ginsbourger, Le Riche and
 *   Carraro 2010, "kriging believer"). Without it, every participant who arrives before the previous one's answers
 *   are judged would get the very same batch. It steers the choice only: results never count it.
 * - Each content's batch is the reference's (runAsap(M).batch: the minimum spanning tree of 1/gain, or a random
 *   tree while the content has fewer than n − 1 comparisons).
 * - The budget goes greedily to the content whose batch promises the most information per comparison (the expected
 *   information gain less its constant offset d, asap.ts); the batch taken is added to that content's counts as
 *   believed, and its next batch computed, until the budget is spent. A last batch larger than what is left is cut
 *   to its largest-gain pairs (the batch is listed largest gain first).
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

/** The offset d in every gain (asap.ts `klDivergence`): n for full ASAP. It carries no information. */
const gainOffset = (n: number) => n;

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
    return { n, counts, mean, batch: [] as Pair[], value: -Infinity };
  });
  const nextBatch = (state: (typeof states)[number]) => {
    if (state.n < 2) return;
    const { batch, gain } = runAsap(state.counts, { random });
    const { n } = state;
    const information = batch.reduce((total, [i, j]) => total + gain[i * n + j] + gain[j * n + i] - gainOffset(n), 0);
    state.batch = batch;
    state.value = batch.length > 0 ? information / batch.length : -Infinity;
  };
  states.forEach(nextBatch);
  const planned: PlannedComparison[] = [];
  while (planned.length < budget) {
    let best = -1;
    for (let c = 0; c < states.length; c++) if (states[c].batch.length > 0 && (best < 0 || states[c].value > states[best].value)) best = c;
    if (best < 0) break;
    const state = states[best];
    for (const [i, j] of state.batch.slice(0, budget - planned.length)) {
      planned.push({ content: best, pair: [i, j] });
      believe(state.counts, state.mean, state.n, i, j);
    }
    nextBatch(state);
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
