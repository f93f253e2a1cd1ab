/**
 * ASAP's posterior over Thurstone scores: TrueSkill approximate message passing (expectation propagation) on a
 * factor graph with one factor per comparison, as the reference computes it (gfxdisp/asap, python/asap_cpu.py,
 * class TrueSkillSolver, after Herbrich et al. and the Cambridge 4F13 note "Message passing in TrueSkill"; the
 * paper: Mikhailiuk, Wilmot, Perez-Ortiz, Yue and Mantiuk, ICPR 2020, §III).
 *
 * Model: score s_i ~ N(0, PRIOR_VARIANCE); a comparison "w preferred to l" observes s_w − s_l + ε > 0 with
 * ε ~ N(0, PERFORMANCE_VARIANCE). Every comparison is one factor, messages in natural parameters (precision P, mean
 * M) from the factor to each of its two players, updated in parallel (all factors from the same marginals, then
 * the marginals from all factors), a fixed number of sweeps, no convergence test: what the reference does.
 *
 * Several trials of the same ordered pair are one row type with a count (the reference unrolls them into equal
 * rows, which start from equal messages and stay equal, so their sum is count × one row's message).
 */
import { normalCdf, normalHazardLower, normalPdf } from '../stats.js';

/** Prior variance of every score: TrueSkillSolver.__init__ `self.pv = 0.5` and `self.Vs = 0.5*np.ones(N)` (asap_cpu.py l. 198, 201). */
export const PRIOR_VARIANCE = 0.5;
/**
 * Variance of the comparison noise: the `1 +` of `vgt = 1+np.sum(1/Psg,1)` and of the factor-to-skill message
 * `self.Pgs = 1/(1+…)` in TrueSkillSolver.solve (asap_cpu.py l. 254, 263), and of `vars_sum` in compute_prob_cmps
 * (l. 104). So P(i preferred to j) = Φ(s_i − s_j) and one ASAP unit is 1.4826 JOD (pwcmp: Φ(Δ/1.4826)).
 */
export const PERFORMANCE_VARIANCE = 1;
/** Sweeps for the posterior of the data: `solve(self, G, num_iters = 6, …)` (asap_cpu.py l. 243). */
export const POSTERIOR_SWEEPS = 6;
/** Sweeps for each hypothetical extra comparison: `solve(…, num_iters=4, save = False)` (asap_cpu.py l. 158, 165). */
export const CANDIDATE_SWEEPS = 4;
/**
 * ASAP-approx's online update: `c = np.sqrt(2+pv[w]+pv[l])` in TrueSkillSolver.solve_approx (asap_cpu.py l. 227),
 * TrueSkill's 2β² with β² = 1. (The full solver's noise is PERFORMANCE_VARIANCE = 1 per comparison; the reference
 * uses 2 here, and so do we.)
 */
export const APPROX_PERFORMANCE_VARIANCE = 2;

/** One ordered pair of the data: `winner` preferred to `loser`, `count` times. */
export interface ComparisonRow {
  winner: number;
  loser: number;
  count: number;
}

/**
 * Factor-to-player messages, per row: [2r] to the row's first column (the winner), [2r + 1] to the second.
 * The reference keeps these as object state (`self.Pgs`, `self.Mgs`) that survives between calls (see gain.ts).
 */
export interface Messages {
  precision: Float64Array;
  mean: Float64Array;
}

export function emptyMessages(rows: number): Messages {
  return { precision: new Float64Array(2 * rows), mean: new Float64Array(2 * rows) };
}

/** φ(x)/Φ(x): `psi` (asap_cpu.py l. 214). Finite below −30 where the reference's 0/0 would give NaN. */
export function psi(x: number): number {
  return x > -30 ? normalPdf(x) / normalCdf(x, 0, 1) : normalHazardLower(x);
}

/** ψ(x)·(ψ(x) + x): `lamb` (asap_cpu.py l. 217). */
export function lambda(x: number): number {
  const p = psi(x);
  return p * (p + x);
}

/**
 * `sweeps` parallel sweeps of TrueSkillSolver.solve (asap_cpu.py l. 243–274), starting from the marginal
 * precisions `startPrecision` and means `startMean` and the messages `messages` (updated in place, as the
 * reference overwrites self.Pgs/self.Mgs). Rows are the data's `rows`, then `extra` (one more comparison with its
 * own messages, the last rows of the message arrays) when given. Returns the marginal means and variances.
 */
export function sweep(
  n: number,
  rows: readonly ComparisonRow[],
  extra: { winner: number; loser: number } | null,
  startPrecision: Float64Array,
  startMean: Float64Array,
  messages: Messages,
  sweeps: number,
): { mean: Float64Array; variance: Float64Array } {
  const ps = Float64Array.from(startPrecision);
  const ms = Float64Array.from(startMean);
  const total = rows.length + (extra ? 1 : 0);
  const { precision: pg, mean: mg } = messages;
  const sumP = new Float64Array(n);
  const sumPM = new Float64Array(n);
  for (let it = 0; it < sweeps; it++) {
    sumP.fill(0);
    sumPM.fill(0);
    for (let r = 0; r < total; r++) {
      const row = r < rows.length ? rows[r] : (extra as { winner: number; loser: number });
      const a = row.winner;
      const b = row.loser;
      const count = r < rows.length ? rows[r].count : 1;
      const k = 2 * r;
      // Player-to-factor (cavity) messages: Psg = Ps[G] − Pgs, Msg = (Ps[G]·Ms[G] − Pgs·Mgs)/Psg.
      const psgA = ps[a] - pg[k];
      const psgB = ps[b] - pg[k + 1];
      const msgA = (ps[a] * ms[a] - pg[k] * mg[k]) / psgA;
      const msgB = (ps[b] * ms[b] - pg[k + 1] * mg[k + 1]) / psgB;
      // Performance difference t = s_a − s_b + ε, then its truncation to t > 0 (moment matching).
      const vgt = PERFORMANCE_VARIANCE + (1 / psgA + 1 / psgB);
      const mgt = msgA - msgB;
      const sd = Math.sqrt(vgt);
      const mt = mgt + sd * psi(mgt / sd);
      const pt = 1 / (vgt * (1 - lambda(mgt / sd)));
      // Truncation factor back to the difference node, then to each player.
      const ptg = pt - 1 / vgt;
      const mtg = (mt * pt - mgt / vgt) / ptg;
      pg[k] = 1 / (PERFORMANCE_VARIANCE + 1 / ptg + 1 / psgB);
      pg[k + 1] = 1 / (PERFORMANCE_VARIANCE + 1 / ptg + 1 / psgA);
      mg[k] = mtg + msgB;
      mg[k + 1] = -mtg + msgA;
      sumP[a] += count * pg[k];
      sumP[b] += count * pg[k + 1];
      sumPM[a] += count * (pg[k] * mg[k]);
      sumPM[b] += count * (pg[k + 1] * mg[k + 1]);
    }
    // Marginals: prior (mean 0, precision 1/pv) times every factor's message.
    for (let p = 0; p < n; p++) {
      ps[p] = 1 / PRIOR_VARIANCE + sumP[p];
      ms[p] = sumPM[p] / ps[p];
    }
  }
  const variance = new Float64Array(n);
  for (let p = 0; p < n; p++) variance[p] = 1 / ps[p];
  return { mean: ms, variance };
}

/**
 * ASAP-approx's one-comparison online update (TrueSkillSolver.solve_approx, asap_cpu.py l. 222–241, the original
 * TrueSkill update): the means and variances of the winner and the loser after one more comparison.
 */
export function onlineUpdate(meanW: number, varW: number, meanL: number, varL: number): { meanW: number; varW: number; meanL: number; varL: number } {
  const c = Math.sqrt(APPROX_PERFORMANCE_VARIANCE + varW + varL);
  const term = (meanW - meanL) / c;
  const f1 = psi(term);
  const f2 = lambda(term);
  return {
    meanW: meanW + (varW / c) * f1,
    meanL: meanL - (varL / c) * f1,
    varW: varW * (1 - (varW * f2) / c ** 2),
    varL: varL * (1 - (varL * f2) / c ** 2),
  };
}
