/**
 * Thurstone Case V scaling in JOD units, maximum likelihood with pwcmp's prior (Perez-Ortiz and Mantiuk 2017,
 * github.com/mantiuk/pwcmp `pw_scale`), reproduced term by term so that the scores equal pwcmp's:
 *
 * - P(i preferred to j) = Φ((q_i − q_j)/σ), σ = 1.4826, so 1 JOD = 75 % preference.
 * - Comparison graph split into several components: the best condition of each component (by the ISO 20462
 *   initial score, first index on ties) is linked to the best of every other by one tie (one win each way).
 * - Negative log-likelihood summed over ordered compared pairs (each pair counts twice, as in pwcmp), plus
 *   −Σ log(prior + 0.1) where prior_a = Σ_b A_b(p_a) / Σ_a' A_b(p_a'), A_b(p) = p^k_b (1 − p)^(n_b − k_b), over
 *   ordered compared pairs a, b; unanimous counts are moved one step towards a tie in k_b (pwcmp's 'gaussian'
 *   prior: how likely each pair's probability is under the distribution of the observed ones).
 * - Scores are defined up to an offset: solved with q_0 = 0, then shifted so the mean is 0 (pwcmp 'mean0',
 *   whose penalty 0.01·mean² is then 0) or so that the anchor is 0 (pwcmp 'fix0' with the anchor first).
 *
 * The objective and its gradient are in thurstone-objective.ts. The prior's exponentials, O(pairs × groups) per
 * evaluation, are nearly all of the time, so what a refit costs is its number of evaluations. The reported scale
 * is solved by BFGS from the likelihood's curvature (`scaleThurstone`). The bootstrap and leave-one-out refits
 * (`refitThurstone`) start from a prediction made with the full data's prior (`refitBasis`, once per analysis)
 * and take Newton steps on the exact likelihood Hessian plus that prior's Hessian: 2 evaluations per refit on
 * bench/analysis's job instead of BFGS's 5 or more (with line searches at the rounding floor), to the same optimum.
 */
import { choleskyInPlace, choleskySolve, multiply, spdInverse } from './dense.js';
import { evaluate, gradientOfScores, likelihoodHessian, prepare, type PairedPrior, type Problem } from './thurstone-objective.js';

export { components, JOD_SIGMA, type PairedPrior } from './thurstone-objective.js';

export interface ThurstoneFit {
  /** Scores with mean 0. */
  jod: Float64Array;
  /** Ties added between components, as stimulus index pairs. */
  bridges: [number, number][];
  components: number;
  iterations: number;
  converged: boolean;
}

/** Scores q (q_0 = 0) of the free coordinates q_1..q_{n−1}. */
function scores(problem: Problem, free: Float64Array): Float64Array {
  const q = new Float64Array(problem.n);
  q.set(free, 1);
  return q;
}

/** Objective and gradient over q_1..q_{n−1} (q_0 = 0). */
function objective(problem: Problem, free: Float64Array, prior: PairedPrior): { value: number; gradient: Float64Array } {
  const value = evaluate(problem, scores(problem, free), prior);
  return { value, gradient: gradientOfScores(problem).subarray(1) };
}

/** Inverse of the likelihood's Hessian, or the identity if it is singular. */
function startingInverse(problem: Problem, free: Float64Array): Float64Array {
  const m = problem.n - 1;
  const inverse = spdInverse(likelihoodHessian(problem, scores(problem, free)), m);
  if (inverse) return inverse;
  const identity = new Float64Array(m * m);
  for (let i = 0; i < m; i++) identity[i * m + i] = 1;
  return identity;
}

interface Iterate {
  x: Float64Array;
  value: number;
  gradient: Float64Array;
  iterations: number;
  converged: boolean;
}

/**
 * Backtracking (Armijo) line search along `direction` and the step's bookkeeping: moves `state` and says whether
 * the step was small enough to stop (largest coordinate step below `tolerance`, or no progress at the noise floor).
 * Returns the step s and the gradient change y for quasi-Newton updates.
 */
function lineStep(problem: Problem, prior: PairedPrior, state: Iterate, direction: Float64Array, slope: number, tolerance: number, trustFullStep = false) {
  const m = state.x.length;
  let step = 1;
  let next = state.x;
  let trial = { value: state.value, gradient: state.gradient };
  for (let halvings = 0; halvings < 60; halvings++) {
    next = state.x.map((v, i) => v + step * direction[i]);
    trial = objective(problem, next, prior);
    if (trial.value <= state.value + 1e-4 * step * slope) break;
    // A Newton step whose predicted gain is below the objective's rounding cannot be judged by its value.
    if (trustFullStep && step === 1 && -slope < 1e-12 * Math.abs(state.value)) break;
    step /= 2;
  }
  let largestStep = 0;
  const s = new Float64Array(m);
  const y = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    s[i] = next[i] - state.x[i];
    y[i] = trial.gradient[i] - state.gradient[i];
    largestStep = Math.max(largestStep, Math.abs(s[i]));
  }
  const improvement = state.value - trial.value;
  state.x = next;
  state.value = trial.value;
  state.gradient = Float64Array.from(trial.gradient);
  const done = largestStep < tolerance || (improvement >= 0 && improvement < 1e-15 * Math.max(1, Math.abs(state.value)) && largestStep < 1e-7);
  return { s, y, done };
}

/** Descent direction −H⁻¹g and its slope gᵀd, or null when H is not positive definite. */
function newtonDirection(h: Float64Array, m: number, gradient: Float64Array): { direction: Float64Array; slope: number } | null {
  if (!choleskyInPlace(h, m)) return null;
  const direction = choleskySolve(h, m, gradient);
  let slope = 0;
  for (let i = 0; i < m; i++) {
    direction[i] = -direction[i];
    slope += direction[i] * gradient[i];
  }
  return { direction, slope };
}

/**
 * Newton steps on the likelihood's exact Hessian plus the prior's Hessian of the basis. That matrix misses only
 * the change of the prior's curvature, so the error shrinks by a steady factor ρ per step (≈ 0.004 on
 * bench/analysis's job), and after a step d the error left is about ρ/(1 − ρ)·|d|, ρ estimated from the last two
 * steps. It stops, the step taken but not evaluated, once that estimate (or |d| itself) is below `tolerance`.
 * Hands over (returns false) when the matrix is not positive definite or gives no descent, e.g. far from the basis.
 */
function newtonWithPriorCurvature(problem: Problem, state: Iterate, curvature: Float64Array, tolerance: number): boolean {
  const m = problem.n - 1;
  let previous = Infinity;
  while (state.iterations < 100) {
    const h = likelihoodHessian(problem, scores(problem, state.x));
    for (let k = 0; k < m * m; k++) h[k] += curvature[k];
    const newton = newtonDirection(h, m, state.gradient);
    if (!newton || !(newton.slope <= 0)) return false;
    state.iterations++;
    const size = Math.max(...newton.direction.map(Math.abs));
    const rate = Number.isFinite(previous) ? size / previous : NaN;
    if (size < tolerance || (rate < 0.5 && (rate / (1 - rate)) * size < tolerance)) {
      for (let i = 0; i < m; i++) state.x[i] += newton.direction[i];
      return (state.converged = true);
    }
    previous = size;
    if (lineStep(problem, 'pwcmp', state, newton.direction, newton.slope, tolerance, true).done) return (state.converged = true);
  }
  return false;
}

/**
 * The refit's first iterate, from the basis without evaluating the prior: the minimum of the new likelihood plus
 * the prior's second-order expansion at the basis (gradient and Hessian of the full data's prior there). Between
 * bootstrap resamples the prior moves much less than the likelihood, so this lands close to the refit's optimum
 * and saves the prior evaluation at the start. Damped Newton on that (convex near the basis) model.
 */
function predictFromBasis(problem: Problem, basis: RefitBasis): Float64Array {
  const m = problem.n - 1;
  const x0 = freeOf(basis.jod);
  const x = Float64Array.from(x0);
  const model = (at: Float64Array) => {
    const value = evaluate(problem, scores(problem, at), 'none');
    const gradient = gradientOfScores(problem).subarray(1);
    const shift = at.map((v, i) => v - x0[i]);
    const curved = multiply(basis.priorHessian, m, shift);
    let extra = 0;
    for (let i = 0; i < m; i++) {
      extra += basis.priorGradient[i] * shift[i] + 0.5 * shift[i] * curved[i];
      gradient[i] += basis.priorGradient[i] + curved[i];
    }
    return { value: value + extra, gradient };
  };
  let current = model(x);
  for (let iteration = 0; iteration < 20; iteration++) {
    const h = likelihoodHessian(problem, scores(problem, x));
    for (let k = 0; k < m * m; k++) h[k] += basis.priorHessian[k];
    const newton = newtonDirection(h, m, current.gradient);
    if (!newton || !(newton.slope < 0)) break;
    let step = 1;
    for (let halvings = 0; halvings < 30; halvings++, step /= 2) {
      const trial = model(x.map((v, i) => v + step * newton.direction[i]));
      if (trial.value <= current.value + 1e-4 * step * newton.slope || -newton.slope < 1e-12 * Math.abs(current.value)) {
        for (let i = 0; i < m; i++) x[i] += step * newton.direction[i];
        current = trial;
        break;
      }
    }
    if (step * Math.max(...newton.direction.map(Math.abs)) < 1e-9) break;
  }
  return x;
}

/** BFGS from the likelihood's curvature (with the prior), or Newton on the exact Hessian (without). */
function quasiNewton(problem: Problem, state: Iterate, prior: PairedPrior, tolerance: number): void {
  const m = problem.n - 1;
  let h = startingInverse(problem, state.x);
  while (state.iterations < 500) {
    state.iterations++;
    let direction: Float64Array;
    let slope: number;
    if (prior === 'none') {
      const newton = newtonDirection(likelihoodHessian(problem, scores(problem, state.x)), m, state.gradient);
      ({ direction, slope } = newton ?? { direction: state.gradient.map((g) => -g), slope: -state.gradient.reduce((a, g) => a + g * g, 0) });
    } else {
      direction = multiply(h, m, state.gradient);
      slope = 0;
      for (let i = 0; i < m; i++) {
        direction[i] = -direction[i];
        slope += direction[i] * state.gradient[i];
      }
    }
    if (!(slope < 0)) {
      if (slope === 0) {
        state.converged = true;
        return;
      }
      // Not a descent direction (curvature lost): restart from the likelihood's curvature.
      h = startingInverse(problem, state.x);
      continue;
    }
    const { s, y, done } = lineStep(problem, prior, state, direction, slope, tolerance);
    if (done) {
      state.converged = true;
      return;
    }
    if (prior !== 'none') bfgsUpdate(h, m, s, y);
  }
}

/**
 * Scales a win matrix (row-major n × n, d[i·n + j] = times i beat j): BFGS from `start` (mean-0 scores of the same
 * stimuli; 0 when absent) until the last step is below `tolerance` (JOD). Without prior the likelihood is solved
 * by Newton's method.
 */
export function scaleThurstone(d: Float64Array, n: number, prior: PairedPrior = 'pwcmp', start?: Float64Array, tolerance = 1e-10): ThurstoneFit {
  const problem = prepare(d, n);
  if (n < 2) return { jod: new Float64Array(n), bridges: [], components: n, iterations: 0, converged: true };
  const x = start ? freeOf(start) : new Float64Array(n - 1);
  const state: Iterate = { x, ...objective(problem, x, prior), iterations: 0, converged: false };
  quasiNewton(problem, state, prior, tolerance);
  return fitOf(problem, state);
}

/** What the refits of one analysis share: the full data's scale, and its prior's gradient and Hessian there. */
export interface RefitBasis {
  /** Mean-0 scores of the full data. */
  jod: Float64Array;
  /** Over q_1..q_{n−1} (q_0 = 0). */
  priorGradient: Float64Array;
  priorHessian: Float64Array;
}

/**
 * Refits pwcmp's scale to a win matrix near the basis (a bootstrap resample, the data without one observer):
 * predicted from the basis (`predictFromBasis`), then Newton steps with the basis's prior curvature until the step
 * is below `tolerance` (JOD; 1e-7 for refits, far below any CI width), BFGS if those fail. The same optimum as
 * `scaleThurstone`, reached in 2–3 evaluations of the prior instead of 5 or more.
 */
export function refitThurstone(d: Float64Array, n: number, basis: RefitBasis, tolerance = 1e-7): ThurstoneFit {
  const problem = prepare(d, n);
  if (n < 2) return { jod: new Float64Array(n), bridges: [], components: n, iterations: 0, converged: true };
  const x = predictFromBasis(problem, basis);
  const state: Iterate = { x, ...objective(problem, x, 'pwcmp'), iterations: 0, converged: false };
  if (!newtonWithPriorCurvature(problem, state, basis.priorHessian, tolerance)) quasiNewton(problem, state, 'pwcmp', tolerance);
  return fitOf(problem, state);
}

/** Step of the finite differences in `refitBasis`, JOD: far below the prior's scale (its kernels' widths). */
const CURVATURE_STEP = 1e-5;

/**
 * The basis of the refits at the scores `jod` of win matrix d. The prior's Hessian comes from forward differences
 * of its analytic gradient (n evaluations, once per analysis): the refits only use it to choose their steps, so
 * its accuracy sets how fast they converge, never where.
 */
export function refitBasis(d: Float64Array, n: number, jod: Float64Array): RefitBasis {
  const problem = prepare(d, n);
  const m = n - 1;
  const priorGradient = (free: Float64Array) => {
    const total = objective(problem, free, 'pwcmp').gradient;
    const likelihood = objective(problem, free, 'none').gradient;
    return total.map((g, i) => g - likelihood[i]);
  };
  const x = freeOf(jod);
  const at = priorGradient(x);
  const h = new Float64Array(m * m);
  for (let j = 0; j < m; j++) {
    const moved = Float64Array.from(x);
    moved[j] += CURVATURE_STEP;
    const column = priorGradient(moved);
    for (let i = 0; i < m; i++) h[i * m + j] = (column[i] - at[i]) / CURVATURE_STEP;
  }
  for (let i = 0; i < m; i++)
    for (let j = 0; j < i; j++) h[i * m + j] = h[j * m + i] = (h[i * m + j] + h[j * m + i]) / 2;
  return { jod: Float64Array.from(jod), priorGradient: at, priorHessian: h };
}

/** q_1..q_{n−1} of scores with q_0 = 0. */
function freeOf(jod: Float64Array): Float64Array {
  return Float64Array.from({ length: jod.length - 1 }, (_, i) => jod[i + 1] - jod[0]);
}

function fitOf(problem: Problem, state: Iterate): ThurstoneFit {
  const q = scores(problem, state.x);
  const mean = q.reduce((a, b) => a + b, 0) / problem.n;
  return { jod: q.map((v) => v - mean), bridges: problem.bridges, components: problem.components, iterations: state.iterations, converged: state.converged };
}

/** In-place inverse-Hessian BFGS update; skipped when the curvature condition fails. */
function bfgsUpdate(h: Float64Array, m: number, s: Float64Array, y: Float64Array): void {
  let sy = 0;
  let ss = 0;
  let yy = 0;
  for (let i = 0; i < m; i++) {
    sy += s[i] * y[i];
    ss += s[i] * s[i];
    yy += y[i] * y[i];
  }
  if (!(sy > 1e-12 * Math.sqrt(ss * yy))) return;
  const rho = 1 / sy;
  const hy = multiply(h, m, y);
  let yhy = 0;
  for (let i = 0; i < m; i++) yhy += y[i] * hy[i];
  const c = rho * rho * yhy + rho;
  for (let i = 0; i < m; i++)
    for (let j = 0; j < m; j++) h[i * m + j] += -rho * (hy[i] * s[j] + s[i] * hy[j]) + c * s[i] * s[j];
}
