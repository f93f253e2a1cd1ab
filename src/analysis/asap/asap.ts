/**
 * ASAP active sampling for pair comparisons (Mikhailiuk, Wilmot, Perez-Ortiz, Yue and Mantiuk, "Active Sampling
 * for Pairwise Comparisons via Approximate Message Passing and Information Gain Maximization", ICPR 2020), equal
 * to the reference implementation gfxdisp/asap python/asap_cpu.py (commit 90082a3) called as
 * `ASAP(N, selective_eig, approx).run_asap(M, mst_mode)` on a fresh object. See README.md.
 *
 * From a count matrix M (M[i][j] = times i was preferred to j):
 * 1. the posterior over the Thurstone scores by message passing (trueskill.ts),
 * 2. per pair, the expected information gain of comparing it once more,
 * 3. the batch to compare next (minimum spanning tree of 1/gain) and the single best pair (select.ts).
 */
import { createRandom } from '../random.js';
import { normalCdf } from '../stats.js';
import { bestPair, minimumSpanningPairs, type Pair } from './select.js';
import {
  CANDIDATE_SWEEPS,
  emptyMessages,
  onlineUpdate,
  POSTERIOR_SWEEPS,
  PERFORMANCE_VARIANCE,
  PRIOR_VARIANCE,
  sweep,
  type ComparisonRow,
} from './trueskill.js';

export { bestPair, minimumSpanningPairs, type Pair } from './select.js';
export { PRIOR_VARIANCE, PERFORMANCE_VARIANCE, POSTERIOR_SWEEPS, CANDIDATE_SWEEPS, APPROX_PERFORMANCE_VARIANCE } from './trueskill.js';

/** Counts as rows (number[][]) or row-major n × n (Float64Array, as paired/'s win matrices). */
export type CountMatrix = ArrayLike<ArrayLike<number>> | Float64Array;

/** What ASAP draws: uniforms in [0, 1) and integers in [0, count). `Random` of ../random.js fits. */
export interface AsapRandom {
  next(): number;
  int(count: number): number;
}

export interface AsapOptions {
  /** ASAP-approx: each candidate's gain from the one-comparison online update (asap_cpu `approx=True`). Default false. */
  approx?: boolean;
  /** Selective evaluation of the gain (asap_cpu `selective_eig=True`): a pair is evaluated with probability
   * min(p, 1 − p) over its row's largest, else its gain is −1. Default false (every pair evaluated). */
  selective?: boolean;
  /** Source of the reference's random draws (selective test, first-round tree, ties of the single pair).
   * Default: createRandom(1), so that a result is reproducible. */
  random?: AsapRandom;
}

export interface AsapPosterior {
  /** Posterior means of the scores (ASAP units: P(i preferred to j) = Φ(s_i − s_j); 1 unit = 1.4826 JOD). */
  mean: Float64Array;
  std: Float64Array;
  variance: Float64Array;
}

export interface AsapResult {
  n: number;
  posterior: AsapPosterior;
  /**
   * Expected information gain, row-major n × n, the reference's `kl_divs`: entry [i·n + j] for i > j is
   * P(i ≻ j)·D(i ≻ j) + P(j ≻ i)·D(j ≻ i), where D = 2·KL(after ‖ now) + d of the posterior after that outcome
   * (d = n, or 2 with `approx`); −1 where selective evaluation skipped the pair; 0 on and above the diagonal.
   */
  gain: Float64Array;
  /** The single pair of largest gain (run_asap with mst_mode=False): [row, column], row > column. */
  pair: Pair;
  /** The batch (run_asap with mst_mode=True): n − 1 pairs [smaller, larger], largest gain first. */
  batch: Pair[];
  /** True when fewer than n − 1 comparisons exist: the batch is a tree of random weights, as the reference's. */
  randomBatch: boolean;
}

interface Counts {
  n: number;
  rows: ComparisonRow[];
  total: number;
}

/** Validated counts, as rows in the reference's unrolled order (row-major over (i, j)). */
function countsOf(matrix: CountMatrix): Counts {
  let n: number;
  let at: (i: number, j: number) => number;
  if (matrix instanceof Float64Array) {
    n = Math.round(Math.sqrt(matrix.length));
    if (n * n !== matrix.length) throw new RangeError(`count matrix of ${matrix.length} values is not square`);
    at = (i, j) => matrix[i * n + j];
  } else {
    n = matrix.length;
    for (let i = 0; i < n; i++) if (matrix[i].length !== n) throw new RangeError(`count matrix row ${i} has ${matrix[i].length} values, not ${n}`);
    at = (i, j) => matrix[i][j];
  }
  if (n < 2) throw new RangeError('ASAP needs at least 2 conditions');
  const rows: ComparisonRow[] = [];
  let total = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const c = at(i, j);
      if (!Number.isInteger(c) || c < 0) throw new RangeError(`count M[${i}][${j}] = ${c} is not a non-negative integer`);
      if (c === 0) continue;
      if (i === j) throw new RangeError(`count M[${i}][${i}] = ${c}: a condition compared with itself`);
      rows.push({ winner: i, loser: j, count: c });
      total += c;
    }
  }
  return { n, rows, total };
}

function posteriorOf(n: number, rows: readonly ComparisonRow[]): AsapPosterior {
  // A fresh TrueSkillSolver: Ms = 0, Vs = pv, no messages; solve(G) with its default 6 sweeps.
  const { mean, variance } = sweep(n, rows, null, new Float64Array(n).fill(1 / PRIOR_VARIANCE), new Float64Array(n), emptyMessages(rows.length), POSTERIOR_SWEEPS);
  return { mean, variance, std: variance.map(Math.sqrt) };
}

/** Posterior means and standard deviations of the scores: the reference's `get_scores()` after `run_asap(M)`. */
export function asapPosterior(matrix: CountMatrix): AsapPosterior {
  const { n, rows } = countsOf(matrix);
  return posteriorOf(n, rows);
}

/**
 * "KL divergence" as kl_divergence_approx (asap_cpu.py l. 179–185): Σ log v₂ − Σ log v₁ + Σ v₁/v₂ + Σ (m₁ − m₂)²/v₂,
 * which is 2·KL(N₁ ‖ N₂) + d for diagonal Gaussians of dimension d (the reference drops the ½ and the −d; the
 * offset is the same for every pair and does not change which pairs are chosen).
 */
function klDivergence(m1: ArrayLike<number>, v1: ArrayLike<number>, m2: ArrayLike<number>, v2: ArrayLike<number>): number {
  let logV2 = 0;
  let logV1 = 0;
  let ratio = 0;
  let shift = 0;
  for (let k = 0; k < m1.length; k++) {
    logV2 += Math.log(v2[k]);
    logV1 += Math.log(v1[k]);
    ratio += v1[k] / v2[k];
    shift += (1 / v2[k]) * (m1[k] - m2[k]) ** 2;
  }
  return logV2 - logV1 + ratio + shift;
}

/**
 * prob[i·n + j] = Φ((m_j − m_i)/√(1 + v_i + v_j)), the probability that j is preferred to i under the posterior
 * predictive (compute_prob_cmps, asap_cpu.py l. 93–118); 0 on the diagonal.
 */
function preferenceProbabilities(posterior: AsapPosterior): Float64Array {
  const { mean, variance } = posterior;
  const n = mean.length;
  const prob = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (i !== j) prob[i * n + j] = normalCdf((mean[j] - mean[i]) / Math.sqrt(PERFORMANCE_VARIANCE + variance[i] + variance[j]), 0, 1);
    }
  }
  return prob;
}

/**
 * Selective evaluation (compute_prob_cmps with selective_eig): the chance of evaluating pair (i, j), i > j, is
 * min(p, 1 − p) divided by the largest such value of row i (0 for a row whose largest is 0).
 */
function evaluationChances(prob: Float64Array, n: number): Float64Array {
  const chance = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    let rowMax = 0;
    for (let j = 0; j <= i; j++) {
      const p = prob[i * n + j];
      chance[i * n + j] = Math.min(p, 1 - p);
      if (chance[i * n + j] > rowMax) rowMax = chance[i * n + j];
    }
    for (let j = 0; j <= i; j++) chance[i * n + j] = rowMax !== 0 ? chance[i * n + j] / rowMax : 0;
  }
  return chance;
}

/**
 * Expected information gain of every pair (compute_information_gain_mat, asap_cpu.py l. 129–175), for pairs
 * (i, j), i = 1…n−1, j = 0…i−1 in this order, one `random.next()` per pair (the selective test; drawn also when
 * every pair is evaluated, as the reference does).
 *
 * Full ASAP re-solves the whole posterior with each outcome appended (4 sweeps). As in the reference, those
 * re-solves start from the posterior's marginals and from *one shared set of messages*: the reference resets its
 * messages to zero after the posterior (add_cmps), then each re-solve overwrites self.Pgs/self.Mgs and the next
 * re-solve starts from them (the extra comparison's messages included, read for the new pair). So a pair's gain
 * depends slightly on the pairs evaluated before it; we keep this so that the gains equal the reference's.
 */
function informationGainOf(counts: Counts, posterior: AsapPosterior, options: AsapOptions, random: AsapRandom): Float64Array {
  const { n, rows } = counts;
  const prob = preferenceProbabilities(posterior);
  const chance = options.selective ? evaluationChances(prob, n) : null;
  const gain = new Float64Array(n * n);
  // Ps = 1./self.Vs: the precision as the reference recomputes it from the saved variances.
  const startPrecision = posterior.variance.map((v) => 1 / v);
  const messages = emptyMessages(rows.length + 1);
  const pairMean = new Float64Array(2);
  const pairVar = new Float64Array(2);
  for (let i = 1; i < n; i++) {
    for (let j = 0; j < i; j++) {
      const u = random.next();
      if ((chance ? chance[i * n + j] : 1) < u) {
        gain[i * n + j] = -1;
        continue;
      }
      let klIWins: number;
      let klJWins: number;
      if (options.approx) {
        pairMean[0] = posterior.mean[i];
        pairMean[1] = posterior.mean[j];
        pairVar[0] = posterior.variance[i];
        pairVar[1] = posterior.variance[j];
        const iw = onlineUpdate(pairMean[0], pairVar[0], pairMean[1], pairVar[1]);
        klIWins = klDivergence([iw.meanW, iw.meanL], [iw.varW, iw.varL], pairMean, pairVar);
        const jw = onlineUpdate(pairMean[1], pairVar[1], pairMean[0], pairVar[0]);
        klJWins = klDivergence([jw.meanL, jw.meanW], [jw.varL, jw.varW], pairMean, pairVar);
      } else {
        const iw = sweep(n, rows, { winner: i, loser: j }, startPrecision, posterior.mean, messages, CANDIDATE_SWEEPS);
        klIWins = klDivergence(iw.mean, iw.variance, posterior.mean, posterior.variance);
        const jw = sweep(n, rows, { winner: j, loser: i }, startPrecision, posterior.mean, messages, CANDIDATE_SWEEPS);
        klJWins = klDivergence(jw.mean, jw.variance, posterior.mean, posterior.variance);
      }
      // kl_divs[ii][jj] = prob[jj][ii]*kl1 + prob[ii][jj]*kl2 (prob[jj][ii] = P(i preferred to j)).
      gain[i * n + j] = prob[j * n + i] * klIWins + prob[i * n + j] * klJWins;
    }
  }
  return gain;
}

/** Posterior and expected information gain (the first half of run_asap). */
export function informationGain(matrix: CountMatrix, options: AsapOptions = {}): { posterior: AsapPosterior; gain: Float64Array } {
  const counts = countsOf(matrix);
  const posterior = posteriorOf(counts.n, counts.rows);
  return { posterior, gain: informationGainOf(counts, posterior, options, options.random ?? createRandom(1)) };
}

/**
 * ASAP.run_asap(M) on a fresh ASAP(N): posterior, gains, the single best pair and the batch. Draws, in the
 * reference's order: one uniform per pair (gain), one integer (single pair), then, when fewer than n − 1
 * comparisons exist, n² uniforms row-major for the random first tree (np.random.rand(N,N), lower triangle kept).
 */
export function runAsap(matrix: CountMatrix, options: AsapOptions = {}): AsapResult {
  const random = options.random ?? createRandom(1);
  const counts = countsOf(matrix);
  const { n } = counts;
  const posterior = posteriorOf(n, counts.rows);
  const gain = informationGainOf(counts, posterior, options, random);
  const pair = bestPair(gain, n, random);
  // run_asap: `if M.sum()<(N-1)`: too few comparisons to judge, a random spanning tree.
  const randomBatch = counts.total < n - 1;
  let weights = gain;
  if (randomBatch) {
    weights = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const u = random.next();
        if (j < i) weights[i * n + j] = u; // np.tril, then np.fill_diagonal(…, 0)
      }
    }
  }
  return { n, posterior, gain, pair, batch: minimumSpanningPairs(weights, n), randomBatch };
}
