/**
 * Maximum likelihood difference scaling (Knoblauch and Maloney 2008; R package MLDS, method = "glm").
 * Quadruples: P(resp = 1) = Φ((ψ4 − ψ3) − (ψ2 − ψ1)), design +1 on s1 and s4, −1 on s2 and s3.
 * Triads: pairs (s1, s2) and (s2, s3), P(resp = 1) = Φ((ψ3 − ψ2) − (ψ2 − ψ1)), design +1, −2, +1.
 * ψ of the lowest level is 0 (its column dropped), σ = 1, no intercept.
 * The linear design assumes each pair is written low → high, as MLDS does: we sort the two levels within
 * each quadruple pair (the pair, hence the response, is unchanged), and, like mlds.mlbs.df, reverse descending
 * triads (s1 > s3) and flip their response.
 * CIs: boot.mlds's parametric bootstrap (responses redrawn from the fitted probabilities, design kept). MLDS
 * reports the bootstrap SD (its plots draw ±2 SD); our ci95 is the normal bootstrap interval ψ ± z₀.₉₇₅·SD, and
 * the percentile interval (R's quantile type 7) is given too: in simulations it covered the true scale less
 * often (91–94 % against 95–97 % in our runs), because the MLE's small-sample bias shifts the bootstrap distribution.
 */
import { consumeVotes, Growable, type VoteCounts } from '../collect.js';
import type { Random } from '../random.js';
import { normalQuantile, percentileInterval, sd, type Interval } from '../stats.js';
import type { ProgressEvent, QuadrupleVote, TripletVote, VoteSource } from '../types.js';
import { DEFAULT_GLM_CONTROL, fitProbitGlm, type SparseDesign } from './probit-glm.js';
import { MissingDataError } from '../missing.js';

export type MldsKind = 'quadruple' | 'triad';

const Z975 = normalQuantile(0.975, 0, 1);

export interface MldsTrials {
  kind: MldsKind;
  /** Trial stimuli, 4 (quadruples) or 3 (triads) per trial, as level indices into `levels`, normalised order. */
  stimuli: Int32Array;
  response: Uint8Array;
  levels: number[];
  observers: number;
  counts: VoteCounts;
  /** Trials whose pairs were written high → low and were put in order. */
  reordered: number;
}

export interface MldsScaleRow {
  level: number;
  /** ψ on MLDS's scale (σ = 1, lowest level 0). */
  value: number;
  /** ψ / ψ(highest level): MLDS's "standard scale" (σ becomes 1/ψmax). */
  normalized: number;
  /** 2.5 % and 97.5 % quantiles of ψ/ψmax over the bootstrap resamples (null without resamples). */
  normalizedCi95: Interval | null;
  /** Standard error from the GLM's information matrix (summary.glm). */
  se: number;
  /** Parametric bootstrap SD (null without resamples). */
  bootstrapSd: number | null;
  /** value ± z₀.₉₇₅ · bootstrapSd (null without resamples). */
  ci95: Interval | null;
  /** 2.5 % and 97.5 % quantiles of the bootstrap values (null without resamples). */
  ci95Percentile: Interval | null;
}

export interface MldsResult {
  kind: MldsKind;
  scale: MldsScaleRow[];
  logLik: number;
  trials: number;
  observers: number;
  iterations: number;
  converged: boolean;
  /** Some fitted probability is numerically 0 or 1 (R glm.fit warns so): the responses are (quasi-)separated. */
  separated: boolean;
  /** Levels whose ψ the data do not identify: SE above NOT_IDENTIFIED_SE (σ units) once separated. */
  notIdentified: number[];
  /** Akaike's criterion, −2·logLik + 2·(levels − 1). */
  aic: number;
  reordered: number;
  resamples: number;
  /** Resamples whose fit failed to converge (kept, as boot.mlds keeps them). */
  nonConvergedResamples: number;
}

export async function collectMldsTrials(
  source: VoteSource<QuadrupleVote> | VoteSource<TripletVote>,
  kind: MldsKind,
  excludeFlagged: boolean,
): Promise<MldsTrials> {
  const width = kind === 'quadruple' ? 4 : 3;
  const raw = new Growable(Float64Array);
  const response = new Growable(Uint8Array);
  const observers = new Set<string>();
  const counts = await consumeVotes(source as VoteSource<QuadrupleVote & TripletVote>, excludeFlagged, (vote) => {
    const s = kind === 'quadruple' ? [vote.s1, vote.s2, vote.s3, vote.s4] : [vote.s1, vote.s2, vote.s3];
    if (!s.every(Number.isFinite) || (vote.response !== 0 && vote.response !== 1)) return false;
    s.forEach((v) => raw.push(v));
    response.push(vote.response);
    observers.add(vote.observer);
    return true;
  });
  const values = raw.toArray();
  const levels = [...new Set(values)].sort((a, b) => a - b);
  const levelIndex = new Map(levels.map((v, i) => [v, i]));
  const stimuli = Int32Array.from(values, (v) => levelIndex.get(v) as number);
  const responses = response.toArray();
  let reordered = 0;
  for (let t = 0; t < responses.length; t++) {
    const o = t * width;
    if (kind === 'quadruple') {
      let swapped = false;
      for (const first of [o, o + 2]) {
        if (stimuli[first] > stimuli[first + 1]) {
          [stimuli[first], stimuli[first + 1]] = [stimuli[first + 1], stimuli[first]];
          swapped = true;
        }
      }
      if (swapped) reordered++;
    } else if (stimuli[o] > stimuli[o + 2]) {
      [stimuli[o], stimuli[o + 2]] = [stimuli[o + 2], stimuli[o]];
      responses[t] = 1 - responses[t];
      reordered++;
    }
  }
  return { kind, stimuli, response: responses, levels, observers: observers.size, counts, reordered };
}

/** The GLM design: one column per level but the lowest. */
export function mldsDesign(trials: MldsTrials): SparseDesign {
  const width = trials.kind === 'quadruple' ? 4 : 3;
  const weights = trials.kind === 'quadruple' ? [1, -1, -1, 1] : [1, -2, 1];
  const rows = trials.response.length;
  const start = new Int32Array(rows + 1);
  const column = new Growable(Int32Array);
  const value = new Growable(Float64Array);
  for (let t = 0; t < rows; t++) {
    // Sum the weights per level (a level may appear twice in one trial).
    const entries = new Map<number, number>();
    for (let k = 0; k < width; k++) {
      const level = trials.stimuli[t * width + k];
      if (level > 0) entries.set(level - 1, (entries.get(level - 1) ?? 0) + weights[k]);
    }
    for (const [c, v] of entries) {
      if (v === 0) continue;
      column.push(c);
      value.push(v);
    }
    start[t + 1] = column.length;
  }
  return { rows, columns: trials.levels.length - 1, start, column: column.toArray(), value: value.toArray() };
}

/** An SE above 100 σ means the estimate is not bounded by the data (separated fits give ~1e7). */
export const NOT_IDENTIFIED_SE = 100;

export function fitMlds(
  trials: MldsTrials,
  resamples: number,
  random: Random,
  onProgress?: (event: ProgressEvent) => void,
): MldsResult {
  if (trials.levels.length < 3) throw new MissingDataError({ code: 'tooFewLevels', levels: trials.levels.length });
  const design = mldsDesign(trials);
  const fit = fitProbitGlm(design, trials.response);
  const p = design.columns;

  const samples = Array.from({ length: p }, () => new Float64Array(resamples));
  let nonConverged = 0;
  const simulated = new Uint8Array(trials.response.length);
  for (let b = 0; b < resamples; b++) {
    for (let r = 0; r < simulated.length; r++) simulated[r] = random.next() < fit.fitted[r] ? 1 : 0;
    const bootFit = fitProbitGlm(design, simulated, DEFAULT_GLM_CONTROL);
    if (!bootFit.converged) nonConverged++;
    for (let c = 0; c < p; c++) samples[c][b] = bootFit.coefficients[c];
    if (onProgress && ((b + 1) % 50 === 0 || b + 1 === resamples)) onProgress({ task: 'MLDS bootstrap', done: b + 1, total: resamples });
  }

  const top = fit.coefficients[p - 1];
  const scale: MldsScaleRow[] = trials.levels.map((level, i) => {
    const boot = resamples > 1;
    if (i === 0) return { level, value: 0, normalized: 0, normalizedCi95: boot ? [0, 0] : null, se: 0, bootstrapSd: boot ? 0 : null, ci95: boot ? [0, 0] : null, ci95Percentile: boot ? [0, 0] : null };
    const value = fit.coefficients[i - 1];
    const bootstrapSd = boot ? sd(samples[i - 1], 1) : null;
    return {
      level,
      value,
      normalized: value / top,
      normalizedCi95: boot ? percentileInterval(samples[i - 1].map((v, b) => v / samples[p - 1][b]), 'type7') : null,
      se: Math.sqrt(fit.covariance.get(i - 1, i - 1)),
      bootstrapSd,
      ci95: bootstrapSd === null ? null : [value - Z975 * bootstrapSd, value + Z975 * bootstrapSd],
      ci95Percentile: boot ? percentileInterval(samples[i - 1], 'type7') : null,
    };
  });
  return {
    kind: trials.kind,
    scale,
    logLik: fit.logLik,
    aic: -2 * fit.logLik + 2 * p,
    trials: trials.response.length,
    observers: trials.observers,
    iterations: fit.iterations,
    converged: fit.converged,
    separated: fit.separated,
    notIdentified: fit.separated ? scale.filter((s) => !(s.se <= NOT_IDENTIFIED_SE)).map((s) => s.level) : [],
    reordered: trials.reordered,
    resamples,
    nonConvergedResamples: nonConverged,
  };
}
