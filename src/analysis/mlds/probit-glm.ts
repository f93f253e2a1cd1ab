/**
 * Binomial GLM with probit link and no intercept, fitted by iteratively reweighted least squares (Fisher
 * scoring) as R's glm.fit does: start from μ = (y + ½)/2, clamp η to ±qnorm(ε) in the link inverse and the
 * density to ≥ ε, stop when |dev − dev_old| / (|dev| + 0.1) < epsilon. Rows of the design are sparse.
 * The deviance test alone stops early: near the optimum the deviance moves by the square of the coefficients'
 * error, so a change below 1e-14 of it still leaves ψ ~1e-8 off (11 iterations where R, summing the deviance in
 * another order, took 16 on MLDS's kk data). The MLDS fit also asks the last step of every coefficient to be
 * below `coefficientTolerance` (relative above 1), unless the fitted probabilities reached 0 or 1 (separation:
 * the coefficients then grow without end, and R's deviance rule is what stops it).
 */
import { CholeskyDecomposition, inverse, Matrix } from 'ml-matrix';
import { normalCdf, normalPdf, normalQuantile } from '../stats.js';
import { MissingDataError } from '../missing.js';

const DOUBLE_EPS = 2.220446049250313e-16;
/** R's binomial()$linkinv for probit clamps η to ±(−qnorm(.Machine$double.eps)). */
const ETA_LIMIT = -normalQuantile(DOUBLE_EPS, 0, 1);

/** Design rows in compressed form: row r has entries start[r]..start[r+1] of (column, value). */
export interface SparseDesign {
  rows: number;
  columns: number;
  start: Int32Array;
  column: Int32Array;
  value: Float64Array;
}

export interface ProbitFit {
  coefficients: Float64Array;
  /** Some fitted probability is numerically 0 or 1 (glm.fit's warning, 10·ε): the data are (quasi-)separated. */
  separated: boolean;
  /** (XᵀWX)⁻¹ at the solution. */
  covariance: Matrix;
  /** Fitted probabilities μ. */
  fitted: Float64Array;
  logLik: number;
  iterations: number;
  converged: boolean;
}

export interface GlmControl {
  epsilon: number;
  maxIterations: number;
  /** Largest last step of a coefficient (relative to it above 1) at convergence; null: the deviance test only. */
  coefficientTolerance?: number | null;
}

/**
 * MLDS's control: glm.control(maxit = 50000, epsilon = 1e-14), plus steps below 1e-12 so that ψ is exact to
 * ~1e-12 whatever the summation order; our cap on iterations is lower, ample for IRLS.
 */
export const MLDS_GLM_CONTROL: GlmControl = { epsilon: 1e-14, maxIterations: 1000, coefficientTolerance: 1e-12 };
/** glm.fit's default, used by boot.mlds for the resamples. */
export const DEFAULT_GLM_CONTROL: GlmControl = { epsilon: 1e-8, maxIterations: 25 };

function linkInverse(eta: number): number {
  return normalCdf(Math.min(Math.max(eta, -ETA_LIMIT), ETA_LIMIT), 0, 1);
}

function linkDerivative(eta: number): number {
  return Math.max(normalPdf(eta), DOUBLE_EPS);
}

function deviance(y: ArrayLike<number>, mu: Float64Array): number {
  let dev = 0;
  for (let r = 0; r < mu.length; r++) dev -= 2 * (y[r] === 1 ? Math.log(mu[r]) : Math.log(1 - mu[r]));
  return dev;
}

export function fitProbitGlm(design: SparseDesign, y: ArrayLike<number>, control: GlmControl = MLDS_GLM_CONTROL): ProbitFit {
  const { rows, columns, start, column, value } = design;
  const eta = new Float64Array(rows);
  const mu = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    mu[r] = (y[r] + 0.5) / 2;
    eta[r] = normalQuantile(mu[r], 0, 1);
  }
  let devOld = deviance(y, mu);
  let coefficients = new Float64Array(columns);
  let information = new Matrix(columns, columns);
  let iterations = 0;
  let converged = false;

  while (iterations < control.maxIterations) {
    iterations++;
    const info = new Float64Array(columns * columns);
    const score = new Float64Array(columns);
    for (let r = 0; r < rows; r++) {
      const d = linkDerivative(eta[r]);
      const variance = mu[r] * (1 - mu[r]);
      const z = eta[r] + (y[r] - mu[r]) / d;
      const w = (d * d) / variance;
      for (let a = start[r]; a < start[r + 1]; a++) {
        const wa = w * value[a];
        score[column[a]] += wa * z;
        for (let b = start[r]; b < start[r + 1]; b++) info[column[a] * columns + column[b]] += wa * value[b];
      }
    }
    information = Matrix.from1DArray(columns, columns, info);
    const cholesky = new CholeskyDecomposition(information);
    if (!cholesky.isPositiveDefinite()) throw new MissingDataError({ code: 'singularDesign' });
    const previous = coefficients;
    coefficients = Float64Array.from(cholesky.solve(Matrix.columnVector(Array.from(score))).getColumn(0));
    let step = 0;
    for (let c = 0; c < columns; c++) step = Math.max(step, Math.abs(coefficients[c] - previous[c]) / Math.max(1, Math.abs(coefficients[c])));
    for (let r = 0; r < rows; r++) {
      let e = 0;
      for (let a = start[r]; a < start[r + 1]; a++) e += value[a] * coefficients[column[a]];
      eta[r] = e;
      mu[r] = linkInverse(e);
    }
    const dev = deviance(y, mu);
    const tolerance = control.coefficientTolerance ?? null;
    if (Math.abs(dev - devOld) / (Math.abs(dev) + 0.1) < control.epsilon && (tolerance === null || step < tolerance || isSeparated(mu))) {
      converged = true;
      break;
    }
    devOld = dev;
  }
  // The covariance is taken at the final weights (R's summary.glm uses the last IRLS weights; equal at convergence).
  return { coefficients, separated: isSeparated(mu), covariance: inverse(information), fitted: mu, logLik: -deviance(y, mu) / 2, iterations, converged };
}

/** glm.fit's test for "fitted probabilities numerically 0 or 1 occurred". */
function isSeparated(mu: Float64Array): boolean {
  for (let r = 0; r < mu.length; r++) if (mu[r] < 10 * DOUBLE_EPS || mu[r] > 1 - 10 * DOUBLE_EPS) return true;
  return false;
}
