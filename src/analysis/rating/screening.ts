/**
 * Observer screening of rating studies, each method on its own (none iterates, as in sureal):
 * - ITU-R BT.500-14 Annex 1 §2.3.1 (sureal's SR_MOS), with repetitions and missing votes handled as sureal does;
 * - the same after ITU-T P.913 bias removal (sureal's BR_SR_MOS);
 * - correlation with the MOS, Pearson and Spearman (sureal's SR_MOS_PCC / SR_MOS_SRCC), and the P.910 crowd
 *   toolkit's straight-lining rule (rating variance below 0.15).
 */
import { mean, pearson, sd, spearman } from '../stats.js';
import { maxRepetitions, type RatingData } from './rating-data.js';

export interface Bt500Screening {
  rejected: boolean[];
  /** Votes at or above MOS + band, and at or below MOS − band. */
  p: Int32Array;
  q: Int32Array;
  /** (P + Q) / (E · R); rejection needs > 0.05. */
  stat1: Float64Array;
  /** |P − Q| / (P + Q) (NaN when P + Q = 0); rejection needs < 0.3. */
  stat2: Float64Array;
  /** Every observer met the rejection rule, so none was rejected (BT.500's own proviso). */
  allWouldBeRejected: boolean;
}

/** Pearson's β2 as scipy computes it (biased moments); NaN when the variance is nil at float resolution. */
function pearsonKurtosis(values: ArrayLike<number>, m: number): number {
  let m2 = 0;
  let m4 = 0;
  for (let i = 0; i < values.length; i++) {
    const d2 = (values[i] - m) ** 2;
    m2 += d2;
    m4 += d2 * d2;
  }
  m2 /= values.length;
  m4 /= values.length;
  if (m2 <= (1e-15 * m) ** 2) return NaN;
  return m4 / (m2 * m2);
}

/** BT.500 screening of the given scores (the data's own scores, or bias-removed ones for P.913). */
export function bt500Screening(data: RatingData, scores: Float64Array = data.score): Bt500Screening {
  const nObservers = data.observers.length;
  const p = new Int32Array(nObservers);
  const q = new Int32Array(nObservers);
  for (let j = 0; j < data.stimuli.length; j++) {
    const values = scores.subarray(data.stimulusStart[j], data.stimulusStart[j + 1]);
    const m = mean(values);
    const sigma = sd(values, 0);
    const kurtosis = pearsonKurtosis(values, m);
    // An undefined β2 (all votes equal) takes the √20 branch, as in sureal; with σ = 0 every vote then counts
    // in both P and Q, which is the letter of the standard's "≥ / ≤" with a zero band.
    const band = kurtosis >= 2 && kurtosis <= 4 ? 2 * sigma : Math.sqrt(20) * sigma;
    for (let k = data.stimulusStart[j]; k < data.stimulusStart[j + 1]; k++) {
      const i = data.observerOf[k];
      if (scores[k] >= m + band) p[i]++;
      if (scores[k] <= m - band) q[i]++;
    }
  }
  const er = data.stimuli.length * maxRepetitions(data);
  const stat1 = new Float64Array(nObservers);
  const stat2 = new Float64Array(nObservers);
  const rejected: boolean[] = [];
  for (let i = 0; i < nObservers; i++) {
    stat1[i] = (p[i] + q[i]) / er;
    stat2[i] = Math.abs((p[i] - q[i]) / (p[i] + q[i]));
    rejected.push(stat1[i] > 0.05 && stat2[i] < 0.3);
  }
  const allWouldBeRejected = nObservers > 0 && rejected.every(Boolean);
  return { rejected: allWouldBeRejected ? rejected.map(() => false) : rejected, p, q, stat1, stat2, allWouldBeRejected };
}

/** P.913 bias offset δ_i: mean over the observer's votes of (vote − MOS of the stimulus). */
export function p913Bias(data: RatingData): Float64Array {
  const mos = stimulusMeans(data);
  const sum = new Float64Array(data.observers.length);
  const n = new Int32Array(data.observers.length);
  for (let k = 0; k < data.score.length; k++) {
    const i = data.observerOf[k];
    sum[i] += data.score[k] - mos[data.stimulusOf[k]];
    n[i]++;
  }
  return sum.map((s, i) => s / n[i]);
}

/** P.913: each observer's bias removed from their votes, then BT.500 on those; `corrected` are the votes less the bias. */
export function p913Screening(data: RatingData): Bt500Screening & { bias: Float64Array; corrected: Float64Array } {
  const bias = p913Bias(data);
  const corrected = data.score.map((x, k) => x - bias[data.observerOf[k]]);
  return { ...bt500Screening(data, corrected), bias, corrected };
}

export interface CorrelationScreening {
  pearson: Float64Array;
  spearman: Float64Array;
  /** min(threshold, mean(r) − SD(r)) over the observers with a defined r (population SD, as sureal). */
  pearsonThreshold: number;
  spearmanThreshold: number;
  /** r ≤ threshold, or r undefined (constant ratings); none when no observer has an r (a single stimulus). */
  pearsonRejected: boolean[];
  spearmanRejected: boolean[];
  /** No observer has a defined r (one stimulus, or every observer rated one): the rule cannot apply. */
  notApplicable: boolean;
}

/**
 * Each observer's r against the MOS: repetitions averaged per stimulus first, and the MOS taken as the mean of
 * the observers' means (sureal's SR_MOS_PCC / SR_MOS_SRCC, observer included in the MOS).
 */
export function correlationScreening(data: RatingData, threshold = 0.7): CorrelationScreening {
  const cells = observerMeans(data);
  const mos = new Float64Array(data.stimuli.length);
  const cellsPerStimulus = new Int32Array(data.stimuli.length);
  for (const cell of cells) {
    mos[cell.stimulus] += cell.mean;
    cellsPerStimulus[cell.stimulus]++;
  }
  mos.forEach((s, j) => (mos[j] = s / cellsPerStimulus[j]));

  const own: number[][] = data.observers.map(() => []);
  const ref: number[][] = data.observers.map(() => []);
  for (const cell of cells) {
    own[cell.observer].push(cell.mean);
    ref[cell.observer].push(mos[cell.stimulus]);
  }
  const rPearson = Float64Array.from(own, (x, i) => pearson(x, ref[i]));
  const rSpearman = Float64Array.from(own, (x, i) => spearman(x, ref[i]));
  const limit = (r: Float64Array) => {
    const defined = r.filter((v) => !Number.isNaN(v));
    return defined.length === 0 ? threshold : Math.min(threshold, mean(defined) - sd(defined, 0));
  };
  const pearsonThreshold = limit(rPearson);
  const spearmanThreshold = limit(rSpearman);
  const notApplicable = rPearson.every(Number.isNaN) && rSpearman.every(Number.isNaN);
  const rejectedBy = (r: Float64Array, t: number) => Array.from(r, (v) => !notApplicable && (Number.isNaN(v) || v <= t));
  return {
    notApplicable,
    pearson: rPearson,
    spearman: rSpearman,
    pearsonThreshold,
    spearmanThreshold,
    pearsonRejected: rejectedBy(rPearson, pearsonThreshold),
    spearmanRejected: rejectedBy(rSpearman, spearmanThreshold),
  };
}

/** Sample variance of each observer's votes; straight-lining below the threshold (P.910 crowd: 0.15). */
export function straightLining(data: RatingData, threshold = 0.15): { variance: Float64Array; flagged: boolean[] } {
  const perObserver: number[][] = data.observers.map(() => []);
  for (let k = 0; k < data.score.length; k++) perObserver[data.observerOf[k]].push(data.score[k]);
  const variance = Float64Array.from(perObserver, (x) => sd(x, 1) ** 2);
  // With fewer than two votes the toolkit takes the variance as 1: not flagged.
  return { variance, flagged: Array.from(variance, (v) => !Number.isNaN(v) && v < threshold) };
}

function stimulusMeans(data: RatingData): Float64Array {
  return Float64Array.from(data.stimuli, (_, j) => mean(data.score.subarray(data.stimulusStart[j], data.stimulusStart[j + 1])));
}

/** Mean of each observer's repetitions on each stimulus they rated. */
function observerMeans(data: RatingData): { stimulus: number; observer: number; mean: number }[] {
  const cells: { stimulus: number; observer: number; mean: number }[] = [];
  for (let k = 0; k < data.score.length; ) {
    let end = k + 1;
    while (end < data.score.length && data.stimulusOf[end] === data.stimulusOf[k] && data.observerOf[end] === data.observerOf[k]) end++;
    cells.push({ stimulus: data.stimulusOf[k], observer: data.observerOf[k], mean: mean(data.score.subarray(k, end)) });
    k = end;
  }
  return cells;
}
