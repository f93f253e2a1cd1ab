/**
 * ITU-T P.910 (2023) Annex E / P.913 §12.6 subject model, X_ij = ψ_j + Δ_i + υ_i·N(0, 1), solved by
 * alternating projection exactly as sureal's MLE_CO_AP2 (Subject_MLE_Projection2) and the P.910 demo do:
 * start from the MOS and the mean offsets; then repeat
 *   v_i = SD of observer i's residuals, v_j = SD of stimulus j's residuals (population SDs, numpy's nanstd),
 *   ψ_j = mean of (x − Δ_i) weighted by 1/(v_i² + 1e-8),
 *   Δ_i = mean of (x − ψ_j),
 * until ‖ψ − ψ_prev‖₂ < 1e-8 or 1,000 iterations; finally shift so that mean(Δ) = 0.
 * Repetitions are further votes of the same observer (sureal's third axis), missing votes are absent.
 */
import { chisquareQuantile, SUREAL_Z95, type Interval } from '../stats.js';
import type { RatingData } from './rating-data.js';

export const P910_MAX_ITERATIONS = 1000;
export const P910_DELTA_THRESHOLD = 1e-8;
const EPSILON = 1e-8;

export interface P910Stimulus {
  stimulus: string;
  quality: number;
  /** v_j / √n_j with v_j the stimulus's residual SD (AP2's "SOS"). */
  qualitySe: number;
  ci95: Interval;
}

export interface P910Observer {
  observer: string;
  n: number;
  bias: number;
  biasSe: number;
  biasCi95: Interval;
  inconsistency: number;
  /** From the observed information (sureal's observer_inconsistency_std); reported, not used for the CI. */
  inconsistencySe: number;
  /** v·√(n/χ²₀.₉₇₅(n)) … v·√(n/χ²₀.₀₂₅(n)), sureal's χ² interval. */
  inconsistencyCi95: Interval;
}

export interface P910Model {
  stimuli: P910Stimulus[];
  observers: P910Observer[];
  iterations: number;
  converged: boolean;
}

export function p910Model(data: RatingData): P910Model {
  const J = data.stimuli.length;
  const I = data.observers.length;
  const { observerOf: obs, stimulusOf: stim, score: x } = data;
  const nVotes = x.length;
  const countI = new Float64Array(I);
  const countJ = new Float64Array(J);
  for (let k = 0; k < nVotes; k++) {
    countI[obs[k]]++;
    countJ[stim[k]]++;
  }

  const meanBy = (groupOf: Int32Array, count: Float64Array, value: (k: number) => number) => {
    const sum = new Float64Array(count.length);
    for (let k = 0; k < nVotes; k++) sum[groupOf[k]] += value(k);
    return sum.map((s, g) => s / count[g]);
  };
  /** numpy's nanstd (ddof 0): SD around the group's own mean of the residuals. */
  const sdBy = (groupOf: Int32Array, count: Float64Array, residual: Float64Array) => {
    const m = meanBy(groupOf, count, (k) => residual[k]);
    const ss = new Float64Array(count.length);
    for (let k = 0; k < nVotes; k++) ss[groupOf[k]] += (residual[k] - m[groupOf[k]]) ** 2;
    return ss.map((s, g) => Math.sqrt(s / count[g]));
  };

  let psi = meanBy(stim, countJ, (k) => x[k]);
  let bias = meanBy(obs, countI, (k) => x[k] - psi[stim[k]]);
  const residual = new Float64Array(nVotes);
  let vI = new Float64Array(I);
  let vJ = new Float64Array(J);
  let iterations = 0;
  let converged = false;
  for (;;) {
    const previous = psi;
    for (let k = 0; k < nVotes; k++) residual[k] = x[k] - psi[stim[k]] - bias[obs[k]];
    vI = sdBy(obs, countI, residual);
    vJ = sdBy(stim, countJ, residual);
    const weight = vI.map((v) => 1 / (v * v + EPSILON));
    const weighted = new Float64Array(J);
    const weightSum = new Float64Array(J);
    for (let k = 0; k < nVotes; k++) {
      const w = weight[obs[k]];
      weighted[stim[k]] += w * (x[k] - bias[obs[k]]);
      weightSum[stim[k]] += w;
    }
    psi = weighted.map((s, j) => s / weightSum[j]);
    const currentPsi = psi;
    bias = meanBy(obs, countI, (k) => x[k] - currentPsi[stim[k]]);
    iterations++;
    let change = 0;
    for (let j = 0; j < J; j++) change += (previous[j] - psi[j]) ** 2;
    if (Math.sqrt(change) < P910_DELTA_THRESHOLD) {
      converged = true;
      break;
    }
    if (iterations >= P910_MAX_ITERATIONS) break;
  }

  // Standard errors use the SDs of the last iteration, as sureal does.
  const qualitySe = vJ.map((v, j) => 1 / Math.sqrt(countJ[j] / (v * v)));
  const biasSe = vI.map((v, i) => 1 / Math.sqrt(countI[i] / (v * v)));
  const curvature = new Float64Array(I);
  for (let k = 0; k < nVotes; k++) {
    const v2 = vI[obs[k]] ** 2;
    const r = x[k] - psi[stim[k]] - bias[obs[k]];
    curvature[obs[k]] += 1 / v2 - (3 * r * r) / (v2 * v2);
  }
  const inconsistencySe = curvature.map((c) => 1 / Math.sqrt(Math.max(0, -c)));

  const meanBias = bias.reduce((a, b) => a + b, 0) / I;
  return {
    stimuli: data.stimuli.map((stimulus, j) => {
      const quality = psi[j] + meanBias;
      const half = SUREAL_Z95 * qualitySe[j];
      return { stimulus, quality, qualitySe: qualitySe[j], ci95: [quality - half, quality + half] };
    }),
    observers: data.observers.map((observer, i) => {
      const b = bias[i] - meanBias;
      const half = SUREAL_Z95 * biasSe[i];
      const n = countI[i];
      const v = vI[i];
      return {
        observer,
        n,
        bias: b,
        biasSe: biasSe[i],
        biasCi95: [b - half, b + half],
        inconsistency: v,
        inconsistencySe: inconsistencySe[i],
        inconsistencyCi95: [v * Math.sqrt(n / chisquareQuantile(0.975, n)), v * Math.sqrt(n / chisquareQuantile(0.025, n))],
      };
    }),
    iterations,
    converged,
  };
}
