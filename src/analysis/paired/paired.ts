/**
 * Paired-comparison analysis: Thurstone (JOD, pwcmp) and Bradley–Terry scales, bootstrap CIs by resampling
 * observers (pwcmp's pw_scale_bootstrp; percentile intervals with MATLAB's prctile rule), preference counts,
 * and pwcmp's leave-one-observer-out outlier scores (pw_outlier_analysis).
 */
import type { Random } from '../random.js';
import { normalCdf, percentileInterval, quantileSorted, type Interval } from '../stats.js';
import type { ProgressEvent } from '../types.js';
import { scaleBradleyTerry } from './bradley-terry.js';
import { identification } from './identification.js';
import { winMatrix, type PairedData } from './paired-data.js';
import { JOD_SIGMA, refitBasis, refitThurstone, scaleThurstone, type PairedPrior, type ThurstoneFit } from './thurstone.js';
import { MissingDataError } from '../missing.js';

/** pwcmp's advice: look at observers whose dist_L exceeds 1.5 (L below Q1 − 1.5·IQR). */
export const OUTLIER_DIST_L = 1.5;
/** Error (JOD) at which a bootstrap or leave-one-out refit stops: far below any CI width or pwcmp's own stopping error. */
const REFIT_TOLERANCE = 1e-7;

export interface PairedScaleRow {
  stimulus: string;
  /** JOD score: mean 0 (pwcmp mean0), or the anchor at 0. */
  jod: number;
  ci95: Interval | null;
  /** Bradley–Terry θ (logit units), same gauge as jod. */
  bt: number;
  bt_ci95: Interval | null;
  /** Rank by JOD within its connected part, 1 = best (ties share the better rank). */
  rank: number;
  /** 2.5 % and 97.5 % quantiles of the rank over the bootstrap resamples (null without resamples). */
  rank_ci95: Interval | null;
  wins: number;
  comparisons: number;
}

export interface PairCount {
  a: string;
  b: string;
  aWins: number;
  bWins: number;
  n: number;
  /** Share of the trials that preferred a. */
  aShare: number;
}

export interface PairedObserver {
  observer: string;
  trials: number;
  /** Pairs this observer compared (pwcmp's normaliser). */
  pairs: number;
  /** pwcmp's L: log10 likelihood of the observer's answers under the scale of the others, per compared pair
   * (null when skipped or with fewer than 3 observers). */
  logLik10PerPair: number | null;
  /** (Q1 − L) / IQR when L < Q1, else 0 (pwcmp's dist_L). */
  distL: number | null;
  outlier: boolean;
}

export interface PairedResult {
  prior: PairedPrior;
  anchor: string | null;
  scale: PairedScaleRow[];
  components: number;
  /** The connected parts of the comparison graph (stimulus names); scores compare only within a part. */
  parts: string[][];
  /**
   * Parts whose votes never go against an order of groups (unanimous or separated data), groups best first:
   * the distances between the groups are not identified (set by pwcmp's prior and the BT penalty).
   */
  separated: Array<{ part: number; groups: string[][] }>;
  bridges: { a: string; b: string }[];
  btPenalized: boolean;
  resamples: number;
  /** Resamples whose comparison graph needed bridging, and those where the BT MLE did not exist. */
  bridgedResamples: number;
  penalizedResamples: number;
  converged: boolean;
  counts: { stimuli: string[]; wins: number[][] };
  pairs: PairCount[];
  observers: PairedObserver[];
}

export interface PairedSettings {
  prior: PairedPrior;
  anchor: string | null;
  resamples: number;
  random: Random;
  /** Leave-one-observer-out scores (one refit per observer); default true. */
  outliers?: boolean;
  onProgress?: (event: ProgressEvent) => void;
}

export function analysePaired(data: PairedData, settings: PairedSettings): PairedResult {
  const n = data.stimuli.length;
  if (n < 2) throw new MissingDataError({ code: 'tooFewStimuli', stimuli: n });
  const anchorIndex = settings.anchor === null ? -1 : data.stimuli.indexOf(settings.anchor);
  if (settings.anchor !== null && anchorIndex < 0) throw new Error(`anchor stimulus "${settings.anchor}" does not appear in the votes`);
  const gauge = (values: Float64Array) => (anchorIndex < 0 ? values : values.map((v) => v - values[anchorIndex]));

  const total = winMatrix(data, () => 1);
  const identified = identification(total, n);
  const partOf = new Int32Array(n);
  identified.parts.forEach((members, part) => members.forEach((i) => (partOf[i] = part)));
  const thurstone = scaleThurstone(total, n, settings.prior);
  const bt = scaleBradleyTerry(total, n);

  const nObservers = data.observers.length;
  const resamples = nObservers >= 2 ? settings.resamples : 0;
  const scoresOutliers = nObservers >= 3 && settings.outliers !== false;
  // Every refit starts from the full data's scale and reuses its prior's curvature (thurstone.ts).
  const basis = settings.prior === 'pwcmp' && (resamples > 0 || scoresOutliers) ? refitBasis(total, n, thurstone.jod) : null;
  const refit = (d: Float64Array) => (basis ? refitThurstone(d, n, basis, REFIT_TOLERANCE) : scaleThurstone(d, n, settings.prior, thurstone.jod, REFIT_TOLERANCE));
  const jodSamples = Array.from({ length: n }, () => new Float64Array(resamples));
  const btSamples = Array.from({ length: n }, () => new Float64Array(resamples));
  const rankSamples = Array.from({ length: n }, () => new Float64Array(resamples));
  let bridgedResamples = 0;
  let penalizedResamples = 0;
  for (let b = 0; b < resamples; b++) {
    const multiplicity = new Int32Array(nObservers);
    for (let k = 0; k < nObservers; k++) multiplicity[settings.random.int(nObservers)]++;
    const d = winMatrix(data, (o) => multiplicity[o]);
    const fit = refit(d);
    if (fit.components > 1) bridgedResamples++;
    const btFit = scaleBradleyTerry(d, n, bt.theta);
    if (btFit.penalized) penalizedResamples++;
    const jod = gauge(fit.jod);
    const theta = gauge(btFit.theta);
    const ranks = ranksOf(jod, partOf);
    for (let i = 0; i < n; i++) {
      jodSamples[i][b] = jod[i];
      btSamples[i][b] = theta[i];
      rankSamples[i][b] = ranks[i];
    }
    if (settings.onProgress && ((b + 1) % 20 === 0 || b + 1 === resamples)) settings.onProgress({ task: 'paired bootstrap', done: b + 1, total: resamples });
  }

  const jod = gauge(thurstone.jod);
  const theta = gauge(bt.theta);
  const ranks = ranksOf(jod, partOf);
  const scale: PairedScaleRow[] = data.stimuli.map((stimulus, i) => {
    let wins = 0;
    let comparisons = 0;
    for (let j = 0; j < n; j++) {
      wins += total[i * n + j];
      comparisons += total[i * n + j] + total[j * n + i];
    }
    return {
      stimulus,
      jod: jod[i],
      ci95: resamples > 0 ? percentileInterval(jodSamples[i], 'hazen') : null,
      bt: theta[i],
      bt_ci95: resamples > 0 ? percentileInterval(btSamples[i], 'hazen') : null,
      rank: ranks[i],
      rank_ci95: resamples > 0 ? percentileInterval(rankSamples[i], 'hazen') : null,
      wins,
      comparisons,
    };
  });

  const names = (indices: number[]) => indices.map((i) => data.stimuli[i]);
  return {
    prior: settings.prior,
    anchor: settings.anchor,
    scale,
    components: thurstone.components,
    parts: identified.parts.map(names),
    separated: identified.separated.map(({ part, groups }) => ({ part, groups: groups.map(names) })),
    bridges: thurstone.bridges.map(([a, b]) => ({ a: data.stimuli[a], b: data.stimuli[b] })),
    btPenalized: bt.penalized,
    resamples,
    bridgedResamples,
    penalizedResamples,
    converged: thurstone.converged && bt.converged,
    counts: { stimuli: data.stimuli, wins: data.stimuli.map((_, i) => Array.from(total.subarray(i * n, (i + 1) * n))) },
    pairs: pairCounts(data.stimuli, total),
    observers: outlierScores(data, total, scoresOutliers ? refit : null, settings),
  };
}

/** Rank of each score within its part (scores of different parts are not comparable), 1 = highest; ties share the better rank. */
function ranksOf(scores: Float64Array, partOf: Int32Array): Int32Array {
  return Int32Array.from(scores, (v, i) => 1 + scores.reduce((above, w, j) => above + (partOf[j] === partOf[i] && w > v ? 1 : 0), 0));
}

function pairCounts(stimuli: string[], total: Float64Array): PairCount[] {
  const n = stimuli.length;
  const pairs: PairCount[] = [];
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const aWins = total[i * n + j];
      const bWins = total[j * n + i];
      if (aWins + bWins > 0) pairs.push({ a: stimuli[i], b: stimuli[j], aWins, bWins, n: aWins + bWins, aShare: aWins / (aWins + bWins) });
    }
  return pairs;
}

/** log10 of the binomial probability of k successes in t trials with probability p (pwcmp's binopdf). */
function log10Binomial(k: number, t: number, p: number): number {
  let logChoose = 0;
  for (let s = 1; s <= k; s++) logChoose += Math.log((t - k + s) / s);
  const logP = k === 0 ? 0 : k * Math.log(p);
  const logQ = t - k === 0 ? 0 : (t - k) * Math.log(1 - p);
  return (logChoose + logP + logQ) / Math.LN10;
}

/** pwcmp's outlier scores; `refit` scales the data without one observer (null: count pairs only). */
function outlierScores(data: PairedData, total: Float64Array, refit: ((d: Float64Array) => ThurstoneFit) | null, settings: PairedSettings): PairedObserver[] {
  const n = data.stimuli.length;
  const nObservers = data.observers.length;
  const scores = new Float64Array(nObservers).fill(NaN);
  const pairsOf = new Int32Array(nObservers);
  const canScore = refit !== null;
  for (let o = 0; o < nObservers; o++) {
    const own = new Float64Array(n * n);
    for (let e = data.observerStart[o]; e < data.observerStart[o + 1]; e++) own[data.winner[e] * n + data.loser[e]] += data.count[e];
    let pairs = 0;
    let sum = 0;
    const others = refit ? refit(total.map((v, k) => v - own[k])).jod : null;
    for (let i = 0; i < n; i++)
      for (let j = i + 1; j < n; j++) {
        const trials = own[i * n + j] + own[j * n + i];
        if (trials === 0) continue;
        pairs++;
        if (others) {
          const p = normalCdf(others[i] - others[j], 0, JOD_SIGMA);
          sum += Math.max(log10Binomial(own[i * n + j], trials, p), -200);
        }
      }
    pairsOf[o] = pairs;
    if (others) scores[o] = sum / Math.max(pairs, 1);
    if (settings.onProgress && canScore && ((o + 1) % 20 === 0 || o + 1 === nObservers)) {
      settings.onProgress({ task: 'paired leave-one-out', done: o + 1, total: nObservers });
    }
  }
  const sorted = Float64Array.from(scores).filter((v) => !Number.isNaN(v)).sort();
  const q1 = quantileSorted(sorted, 0.25, 'hazen');
  const iqr = quantileSorted(sorted, 0.75, 'hazen') - q1;
  return data.observers.map((observer, o) => {
    const l = scores[o];
    const distL = Number.isNaN(l) ? null : l < q1 ? (q1 - l) / iqr : 0;
    return {
      observer,
      trials: data.trials[o],
      pairs: pairsOf[o],
      logLik10PerPair: Number.isNaN(l) ? null : l,
      distL,
      outlier: distL !== null && distL > OUTLIER_DIST_L,
    };
  });
}
