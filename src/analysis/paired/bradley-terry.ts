/**
 * Bradley–Terry maximum likelihood, P(i beats j) = 1 / (1 + exp(−(θ_i − θ_j))), θ on the logit scale with
 * mean 0 (BradleyTerry2 and choix give the same differences). Newton's method on θ_1..θ_{n−1} with θ_0 = 0.
 * The MLE exists only when every stimulus has beaten and lost to the rest through some chain (Ford 1957:
 * the "beats" graph is strongly connected). When it does not, the fit adds choix's L2 penalty α/2·Σθ²
 * with α = 0.01, and says so: the result is then a penalised estimate, finite but shrunk.
 */
import { CholeskyDecomposition, Matrix } from 'ml-matrix';

export const BT_PENALTY = 0.01;

export interface BradleyTerryFit {
  theta: Float64Array;
  penalized: boolean;
  iterations: number;
  converged: boolean;
}

/** Ford's condition: from stimulus 0 every stimulus is reached along "beat" edges and along "lost" edges. */
export function mleExists(d: Float64Array, n: number): boolean {
  const reach = (forward: boolean) => {
    const seen = new Uint8Array(n);
    const stack = [0];
    seen[0] = 1;
    while (stack.length > 0) {
      const i = stack.pop() as number;
      for (let j = 0; j < n; j++) {
        if (!seen[j] && (forward ? d[i * n + j] : d[j * n + i]) > 0) {
          seen[j] = 1;
          stack.push(j);
        }
      }
    }
    return seen.every(Boolean);
  };
  return n < 2 || (reach(true) && reach(false));
}

function logistic(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

/** Fits a win matrix (row-major n × n, d[i·n + j] = times i beat j); `start` warms the refits. */
export function scaleBradleyTerry(d: Float64Array, n: number, start?: Float64Array): BradleyTerryFit {
  const penalized = !mleExists(d, n);
  const alpha = penalized ? BT_PENALTY : 0;
  // With the penalty all n scores are free (the penalty fixes the offset); without it θ_0 = 0.
  const offset = penalized ? 0 : 1;
  const m = n - offset;
  const theta = start ? Float64Array.from(start, (v) => v - (penalized ? 0 : start[0])) : new Float64Array(n);
  let iterations = 0;
  let converged = n < 2;
  const logLik = (t: Float64Array) => {
    let value = 0;
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (d[i * n + j] > 0) value += d[i * n + j] * Math.log(logistic(t[i] - t[j]));
    return value - (alpha / 2) * t.reduce((a, v) => a + v * v, 0);
  };
  let current = logLik(theta);
  while (!converged && iterations < 200) {
    iterations++;
    const gradient = new Float64Array(n);
    const hessian = new Matrix(m, m);
    for (let i = 0; i < n; i++) {
      gradient[i] -= alpha * theta[i];
      for (let j = i + 1; j < n; j++) {
        const total = d[i * n + j] + d[j * n + i];
        if (total === 0) continue;
        const p = logistic(theta[i] - theta[j]);
        gradient[i] += d[i * n + j] - total * p;
        gradient[j] -= d[i * n + j] - total * p;
        const c = total * p * (1 - p);
        const a = i - offset;
        const b = j - offset;
        if (a >= 0) hessian.set(a, a, hessian.get(a, a) + c);
        if (b >= 0) hessian.set(b, b, hessian.get(b, b) + c);
        if (a >= 0 && b >= 0) {
          hessian.set(a, b, hessian.get(a, b) - c);
          hessian.set(b, a, hessian.get(b, a) - c);
        }
      }
    }
    for (let a = 0; a < m; a++) hessian.set(a, a, hessian.get(a, a) + alpha);
    const step = new CholeskyDecomposition(hessian).solve(Matrix.columnVector(Array.from(gradient.subarray(offset)))).getColumn(0);
    // Newton step with halving: the log-likelihood is concave, so this always ends.
    let scale = 1;
    let next = theta;
    let value = current;
    for (let halvings = 0; halvings < 50; halvings++) {
      next = Float64Array.from(theta, (v, i) => (i < offset ? v : v + scale * step[i - offset]));
      value = logLik(next);
      if (value >= current - 1e-12 * Math.abs(current)) break;
      scale /= 2;
    }
    const change = step.reduce((a, v) => Math.max(a, Math.abs(v * scale)), 0);
    theta.set(next);
    current = value;
    if (change < 1e-10) converged = true;
  }
  const mean = theta.reduce((a, b) => a + b, 0) / n;
  return { theta: theta.map((v) => v - mean), penalized, iterations, converged };
}
