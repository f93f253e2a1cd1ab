/**
 * The objective that thurstone.ts minimises: pwcmp's negative log-likelihood plus its prior (thurstone.ts says
 * term by term what they are), with its gradient and the likelihood's Hessian.
 *
 * pwcmp sums over ordered pairs, (i, j) and (j, i) both, with x_ji = −x_ij. Both sums are symmetric under that
 * swap: the likelihood term of (j, i) is that of (i, j), and the prior's groups come in mirror pairs, (n, k) for
 * (i, j) and (n, n − k) for (j, i), with A_(n,n−k)(−x) = A_(n,k)(x), so prior_(j,i) = prior_(i,j). We therefore
 * evaluate everything at y = |x_ij| ≥ 0, once per compared pair, and count it twice: the same terms as the ordered
 * sums, half the kernel evaluations (the prior's exponentials are nearly all of the cost of a refit).
 */
import { logCdfAndHazard, normalHazardLower, normalQuantile } from '../stats.js';

export const JOD_SIGMA = 1.4826;
export type PairedPrior = 'pwcmp' | 'none';

/** Terms of the prior below e^−40 of their group's largest are dropped (relative error < 5e−18 each). */
const SKIP = -40;

export interface Problem {
  n: number;
  /** Compared pairs, i < j: i beat j `wins` times and lost `losses` times (bridging ties included). */
  first: Int32Array;
  second: Int32Array;
  wins: Float64Array;
  losses: Float64Array;
  /** The prior's groups: distinct (trials, k) over ordered pairs, k after pwcmp's unanimous step, and how many. */
  groupTrials: Float64Array;
  groupK: Float64Array;
  groupCount: Float64Array;
  /** The group of the same pairs seen the other way round, (trials, trials − k); a group can be its own. */
  groupMirror: Int32Array;
  /** Where each group's kernel k·log Φ(y) + (trials − k)·log Φ(−y) peaks: Φ(y) = k / trials. */
  groupPeak: Float64Array;
  bridges: [number, number][];
  components: number;
  /** Gradient of the last `evaluate` with respect to x of each pair. */
  gradX: Float64Array;
  work: Workspace;
}

/** Per-pair scratch of `evaluate`, indexed by pair (y, sign) or by position in the y order (the rest). */
interface Workspace {
  y: Float64Array;
  sign: Float64Array;
  order: Uint32Array;
  logP: Float64Array;
  logQ: Float64Array;
  hazardP: Float64Array;
  hazardQ: Float64Array;
  prior: Float64Array;
  weight: Float64Array;
  gradY: Float64Array;
  /** Per group: best position, its exponent, window start, width, offset in `kernel`, kernel sum. */
  best: Int32Array;
  bestExponent: Float64Array;
  from: Int32Array;
  width: Int32Array;
  offset: Int32Array;
  sum: Float64Array;
}

/**
 * Kernel values of all windows of one evaluation, reused across calls (evaluation is synchronous): thousands of
 * refits would otherwise allocate megabytes each. Kept up to KEEP_KERNEL values (16 MB), so that one very large
 * study does not leave a big buffer behind in a long-running process.
 */
const KEEP_KERNEL = 1 << 21;
let kernel = new Float64Array(1 << 16);

/** Connected components of the comparison graph, numbered from the lowest stimulus index (pwcmp's order). */
export function components(d: Float64Array, n: number): Int32Array {
  const group = new Int32Array(n).fill(-1);
  let next = 0;
  for (let start = 0; start < n; start++) {
    if (group[start] >= 0) continue;
    const stack = [start];
    group[start] = next;
    while (stack.length > 0) {
      const i = stack.pop() as number;
      for (let j = 0; j < n; j++) {
        if (group[j] < 0 && d[i * n + j] + d[j * n + i] > 0) {
          group[j] = next;
          stack.push(j);
        }
      }
    }
    next++;
  }
  return group;
}

/** pwcmp's bridging: the best stimulus of each component, by its ISO 20462 initial score, tied once to the best of every other. */
function bridge(d: Float64Array, n: number, group: Int32Array, nGroups: number): [number, number][] {
  // Column sums of −(12/π·asin(√M) − 3)/2, M = D / (D + Dᵀ), 0.5 where undefined.
  const q = new Float64Array(n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const total = d[i * n + j] + d[j * n + i];
      const m = total > 0 ? d[i * n + j] / total : 0.5;
      q[j] += -((12 / Math.PI) * Math.asin(Math.sqrt(m)) - 3) / 2;
    }
  const best = Array.from({ length: nGroups }, (_, g) => {
    let top = -1;
    for (let i = 0; i < n; i++) if (group[i] === g && (top < 0 || q[i] > q[top])) top = i;
    return top;
  });
  const bridges: [number, number][] = [];
  for (let g = 0; g < nGroups; g++)
    for (let h = g + 1; h < nGroups; h++) {
      d[best[g] * n + best[h]] = 1;
      d[best[h] * n + best[g]] = 1;
      bridges.push([best[g], best[h]]);
    }
  return bridges;
}

/** A key of (trials, k), 0 ≤ k ≤ trials: a number while exact (every count of a real study), else text. */
const groupKey = (trials: number, k: number): number | string => (trials < 2 ** 26 ? trials * 2 ** 26 + k : `${trials},${k}`);

/** The problem of a win matrix (row-major n × n, d[i·n + j] = times i beat j). */
export function prepare(input: Float64Array, n: number): Problem {
  const d = Float64Array.from(input);
  const group = components(d, n);
  const nGroups = n === 0 ? 0 : Math.max(...group) + 1;
  // pwcmp moves unanimous counts one step towards a tie, in the prior only (flags taken before bridging).
  const unanimous = new Uint8Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) if (d[i * n + j] + d[j * n + i] > 0 && (d[i * n + j] === 0 || d[j * n + i] === 0)) unanimous[i * n + j] = 1;
  const bridges = nGroups > 1 ? bridge(d, n, group, nGroups) : [];

  const first: number[] = [];
  const second: number[] = [];
  const groups = new Map<number | string, number>();
  const list: { trials: number; k: number; count: number }[] = [];
  const addGroup = (trials: number, k: number) => {
    const key = groupKey(trials, k);
    const known = groups.get(key);
    if (known !== undefined) list[known].count++;
    else {
      groups.set(key, list.length);
      list.push({ trials, k, count: 1 });
    }
  };
  const priorK = (i: number, j: number) => (unanimous[i * n + j] ? (d[i * n + j] === 0 ? 1 : d[i * n + j] - 1) : d[i * n + j]);
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const trials = d[i * n + j] + d[j * n + i];
      if (trials === 0) continue;
      first.push(i);
      second.push(j);
      addGroup(trials, priorK(i, j));
      addGroup(trials, priorK(j, i));
    }
  const pairs = first.length;
  const G = list.length;
  const scratch = () => new Float64Array(pairs);
  const perGroup = () => new Float64Array(G);
  return {
    n,
    first: Int32Array.from(first),
    second: Int32Array.from(second),
    wins: Float64Array.from(first, (i, c) => d[i * n + second[c]]),
    losses: Float64Array.from(first, (i, c) => d[second[c] * n + i]),
    groupTrials: Float64Array.from(list, (g) => g.trials),
    groupK: Float64Array.from(list, (g) => g.k),
    groupCount: Float64Array.from(list, (g) => g.count),
    groupMirror: Int32Array.from(list, (g) => groups.get(groupKey(g.trials, g.trials - g.k)) as number),
    groupPeak: Float64Array.from(list, (g) => normalQuantile(g.k / g.trials, 0, 1)),
    bridges,
    components: nGroups,
    gradX: scratch(),
    work: {
      y: scratch(),
      sign: scratch(),
      order: new Uint32Array(pairs),
      logP: scratch(),
      logQ: scratch(),
      hazardP: scratch(),
      hazardQ: scratch(),
      prior: scratch(),
      weight: scratch(),
      gradY: scratch(),
      best: new Int32Array(G),
      bestExponent: perGroup(),
      from: new Int32Array(G),
      width: new Int32Array(G),
      offset: new Int32Array(G),
      sum: perGroup(),
    },
  };
}

/** Objective at scores q (length n); its gradient in x of each pair is left in problem.gradX. */
export function evaluate(problem: Problem, q: Float64Array, prior: PairedPrior): number {
  const { first, second, wins, losses, gradX } = problem;
  const { y, sign } = problem.work;
  const pairs = first.length;
  let value = 0;
  const tail = { log: 0, hazard: 0 };
  const lower = { log: 0, hazard: 0 };
  for (let c = 0; c < pairs; c++) {
    const x = (q[first[c]] - q[second[c]]) / JOD_SIGMA;
    const s = x < 0 ? -1 : 1;
    y[c] = s * x;
    sign[c] = s;
    logCdfAndHazard(x, tail); // log Φ(x), d log Φ(x)/dx
    logCdfAndHazard(-x, lower); // log Φ(−x), −d log Φ(−x)/dx
    // Both orientations of the pair: twice the (i, j) term.
    value -= 2 * (wins[c] * tail.log + losses[c] * lower.log);
    gradX[c] = -2 * (wins[c] * tail.hazard - losses[c] * lower.hazard);
  }
  return prior === 'none' || pairs === 0 ? value : value + addPrior(problem);
}

/**
 * pwcmp's prior term −Σ log(prior_a + 0.1) over ordered pairs a, where prior_a = Σ_g m_g ρ_ag, ρ_ag = A_g(x_a) / Z_g
 * and Z_g = Σ_a A_g(x_a); adds its gradient to gradX. Evaluated at the positions y ≥ 0 (one per pair, standing for
 * both orientations): Z_g = S_g + S_g' with S_g = Σ_c A_g(y_c) and g' the mirror group, so a group and its mirror
 * are handled together. Each group's exponent is concave in y, so over the sorted positions it rises to one peak
 * and falls: only the run within e^−40 of the largest term of the group or its mirror is visited.
 */
function addPrior(problem: Problem): number {
  const { groupTrials, groupMirror, gradX } = problem;
  const { y, sign, order, logP, logQ, hazardP, hazardQ, prior, weight, gradY } = problem.work;
  const P = y.length;
  const G = groupTrials.length;
  // Positions sorted by y, their log-probabilities and hazards laid out in that order for tight inner loops.
  for (let p = 0; p < P; p++) order[p] = p;
  order.sort((a, b) => y[a] - y[b]);
  const tail = { log: 0, hazard: 0 };
  for (let p = 0; p < P; p++) {
    const yp = y[order[p]];
    logCdfAndHazard(yp, tail);
    logP[p] = tail.log;
    hazardP[p] = tail.hazard;
    logCdfAndHazard(-yp, tail);
    logQ[p] = tail.log;
    hazardQ[p] = tail.hazard;
  }
  locatePeaks(problem);
  // Kernel values of each group and its mirror, normalised by their shared Z, summed into prior_p = Σ_g m_g ρ_pg.
  prior.fill(0);
  let used = 0;
  for (let g = 0; g < G; g++) {
    const mirror = groupMirror[g];
    if (mirror < g) continue; // handled with its mirror
    const top = Math.max(problem.work.bestExponent[g], problem.work.bestExponent[mirror]);
    used = fillWindow(problem, g, top, used);
    if (mirror !== g) used = fillWindow(problem, mirror, top, used);
    const z = problem.work.sum[g] + problem.work.sum[mirror];
    normalise(problem, g, z);
    if (mirror !== g) normalise(problem, mirror, z);
  }
  let value = 0;
  for (let p = 0; p < P; p++) {
    weight[p] = 1 / (prior[p] + 0.1);
    value -= 2 * Math.log(prior[p] + 0.1);
  }
  // ∂/∂y_p = −2 Σ_g m_g ρ_pg (k h(y_p) − (n − k) h(−y_p)) (w_p − U_g), U_g = Σ_a ρ_ag w_a over both orientations.
  gradY.fill(0);
  for (let g = 0; g < G; g++) {
    const mirror = groupMirror[g];
    if (mirror < g) continue;
    const shared = mirror === g ? 2 * weighted(problem, g) : weighted(problem, g) + weighted(problem, mirror);
    addGradient(problem, g, shared);
    if (mirror !== g) addGradient(problem, mirror, shared);
  }
  for (let p = 0; p < P; p++) gradX[order[p]] += sign[order[p]] * gradY[p];
  if (kernel.length > KEEP_KERNEL) kernel = new Float64Array(1 << 16);
  return value;
}

/** Divides group g's kernel values by Z, giving ρ, and adds m_g·ρ to the prior of their positions. */
function normalise(problem: Problem, g: number, z: number): void {
  const { prior, from, width, offset } = problem.work;
  const values = kernel;
  const m = problem.groupCount[g];
  const shift = from[g] - offset[g];
  for (let v = offset[g], last = offset[g] + width[g]; v < last; v++) {
    const rho = values[v] / z;
    values[v] = rho;
    prior[v + shift] += m * rho;
  }
}

/** Σ_p ρ_pg w_p over group g's window. */
function weighted(problem: Problem, g: number): number {
  const { weight, from, width, offset } = problem.work;
  const values = kernel;
  const shift = from[g] - offset[g];
  let total = 0;
  for (let v = offset[g], last = offset[g] + width[g]; v < last; v++) total += values[v] * weight[v + shift];
  return total;
}

/** Group g's share of ∂/∂y_p: −2 m_g ρ_pg (k h(y_p) − (n − k) h(−y_p)) (w_p − U_g). */
function addGradient(problem: Problem, g: number, shared: number): void {
  const { hazardP, hazardQ, weight, gradY, from, width, offset } = problem.work;
  const values = kernel;
  const k = problem.groupK[g];
  const r = problem.groupTrials[g] - k;
  const m2 = 2 * problem.groupCount[g];
  const shift = from[g] - offset[g];
  for (let v = offset[g], last = offset[g] + width[g]; v < last; v++) {
    const p = v + shift;
    gradY[p] -= m2 * values[v] * (k * hazardP[p] - r * hazardQ[p]) * (weight[p] - shared);
  }
}

/** Each group's best position over y ≥ 0, a neighbour of its peak (the exponent is concave in y), and its exponent. */
function locatePeaks(problem: Problem): void {
  const { groupTrials, groupK, groupPeak } = problem;
  const { y, order, logP, logQ, best, bestExponent } = problem.work;
  const P = y.length;
  for (let g = 0; g < groupK.length; g++) {
    const k = groupK[g];
    const r = groupTrials[g] - k;
    const peak = groupPeak[g];
    let lo = 0;
    let hi = P;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (y[order[mid]] < peak) lo = mid + 1;
      else hi = mid;
    }
    let at = Math.min(lo, P - 1);
    if (at > 0 && k * logP[at - 1] + r * logQ[at - 1] >= k * logP[at] + r * logQ[at]) at--;
    best[g] = at;
    bestExponent[g] = k * logP[at] + r * logQ[at];
  }
}

/**
 * Group g's window: the positions around its best one whose exponent is above top − 40, their values
 * exp(exponent − top) stored in `kernel` from `used` on (grown when needed), and their sum. Returns the next free slot.
 */
function fillWindow(problem: Problem, g: number, top: number, used: number): number {
  const { logP, logQ, best, bestExponent, from, width, offset, sum } = problem.work;
  const k = problem.groupK[g];
  const r = problem.groupTrials[g] - k;
  const cut = top + SKIP;
  let start = best[g];
  let end = start - 1; // empty unless the best term is above the cut
  if (bestExponent[g] > cut) {
    end = start;
    while (start > 0 && k * logP[start - 1] + r * logQ[start - 1] > cut) start--;
    while (end < logP.length - 1 && k * logP[end + 1] + r * logQ[end + 1] > cut) end++;
  }
  const size = end - start + 1;
  if (used + size > kernel.length) {
    const bigger = new Float64Array(Math.max(2 * kernel.length, used + size));
    bigger.set(kernel.subarray(0, used));
    kernel = bigger;
  }
  const values = kernel;
  let total = 0;
  for (let p = start, v = used; p <= end; p++, v++) {
    const value = Math.exp(k * logP[p] + r * logQ[p] - top);
    values[v] = value;
    total += value;
  }
  from[g] = start;
  width[g] = size;
  offset[g] = used;
  sum[g] = total;
  return used + size;
}

/** Gradient over q (length n) from problem.gradX. */
export function gradientOfScores(problem: Problem): Float64Array {
  const gradQ = new Float64Array(problem.n);
  const { first, second, gradX } = problem;
  for (let c = 0; c < gradX.length; c++) {
    gradQ[first[c]] += gradX[c] / JOD_SIGMA;
    gradQ[second[c]] -= gradX[c] / JOD_SIGMA;
  }
  return gradQ;
}

/** The likelihood's Hessian in q_1..q_{n−1} (q_0 = 0), with a tiny ridge so that it factors. */
export function likelihoodHessian(problem: Problem, q: Float64Array): Float64Array {
  const m = problem.n - 1;
  const h = new Float64Array(m * m);
  let largest = 0;
  for (let c = 0; c < problem.first.length; c++) {
    const x = (q[problem.first[c]] - q[problem.second[c]]) / JOD_SIGMA;
    const hp = normalHazardLower(x);
    const hq = normalHazardLower(-x);
    // Second derivative of −2[w log Φ(x) + l log Φ(−x)] in x (both orientations), divided by σ² for q.
    const value = (2 * (problem.wins[c] * hp * (x + hp) + problem.losses[c] * hq * (hq - x))) / (JOD_SIGMA * JOD_SIGMA);
    const i = problem.first[c] - 1;
    const j = problem.second[c] - 1;
    if (i >= 0) h[i * m + i] += value;
    if (j >= 0) h[j * m + j] += value;
    if (i >= 0 && j >= 0) {
      h[i * m + j] -= value;
      h[j * m + i] -= value;
    }
    largest = Math.max(largest, value);
  }
  for (let i = 0; i < m; i++) h[i * m + i] += 1e-12 * (largest || 1);
  return h;
}
