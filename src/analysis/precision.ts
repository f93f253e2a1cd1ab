/**
 * Stopping for precision (issue 38): how wide each stimulus's confidence interval is against the target a study
 * sets (`quality.stopWhen: { ciHalfWidth, level }`), on the MOS scale for rating protocols and on the JOD scale for
 * pair comparisons. The server closes a job to new participants once every stimulus has reached the target; the
 * console and the report show the same figures.
 *
 * - Ratings: the Student-t interval of the mean, t((1 + level) / 2, n − 1) · s / √n, as `rating/mos.ts`'s `ci95_t`
 *   at level 0.95. It needs at least 2 scores.
 * - Pairs: ASAP's posterior over each content's Thurstone scores (`asap/`, the message passing the adaptive design
 *   shares): z((1 + level) / 2) · σ, σ in JOD (1 ASAP unit = 1.4826 JOD). A posterior, not a bootstrap: it is cheap
 *   enough to recompute at every completion, and it narrows only with comparisons that involve the stimulus.
 */
import { asapPosterior, type CountMatrix } from './asap/asap.js';
import { normalQuantile, tQuantile } from './stats.js';

/** The study's rule: stop once every stimulus's interval at `level` is at most ± `ciHalfWidth`. */
export interface StopRule {
  ciHalfWidth: number;
  /** Coverage of the interval; default 0.95. */
  level?: number;
}

export const DEFAULT_STOP_LEVEL = 0.95;

/** One ASAP unit in JOD: P(i ≻ j) = Φ(s_i − s_j) in ASAP, Φ(Δ / 1.4826) in pwcmp's JOD (asap/trueskill.ts). */
export const JOD_PER_ASAP_UNIT = 1.4826;

export interface StimulusPrecision {
  stimulus: string;
  /** Answers that inform it: ratings, or comparisons it took part in. */
  n: number;
  /** MOS, or the posterior mean in JOD (each content's scores centred on 0). */
  estimate: number | null;
  /** Half the interval's width; null while there are too few answers for one. */
  halfWidth: number | null;
  reached: boolean;
}

export interface JobPrecision {
  scale: 'MOS' | 'JOD';
  ciHalfWidth: number;
  level: number;
  /** Every stimulus of the job, the widest interval first (no interval yet counts as the widest). */
  stimuli: StimulusPrecision[];
  reached: number;
  total: number;
  /** Every stimulus has reached the target (false for a job without stimuli). */
  allReached: boolean;
}

/** Per analysis stimulus: the count, sum and sum of squares of its scores. */
export interface ScoreMoments {
  n: number;
  sum: number;
  squares: number;
}

const levelOf = (rule: StopRule) => rule.level ?? DEFAULT_STOP_LEVEL;

function summarise(scale: JobPrecision['scale'], rule: StopRule, stimuli: StimulusPrecision[]): JobPrecision {
  const widest = (s: StimulusPrecision) => s.halfWidth ?? Number.POSITIVE_INFINITY;
  stimuli.sort((a, b) => widest(b) - widest(a) || (a.stimulus < b.stimulus ? -1 : a.stimulus > b.stimulus ? 1 : 0));
  const reached = stimuli.filter((s) => s.reached).length;
  return { scale, ciHalfWidth: rule.ciHalfWidth, level: levelOf(rule), stimuli, reached, total: stimuli.length, allReached: stimuli.length > 0 && reached === stimuli.length };
}

/** The t interval of one stimulus's mean from its moments (the variance from them loses nothing at 1–100 scores). */
export function meanHalfWidth(moments: ScoreMoments, level: number): number | null {
  const { n, sum, squares } = moments;
  if (n < 2) return null;
  const variance = Math.max(0, (squares - (sum * sum) / n) / (n - 1));
  return tQuantile((1 + level) / 2, n - 1) * Math.sqrt(variance / n);
}

/**
 * Rating protocols: every stimulus in `expected` (the job's analysis stimuli; one without scores has no interval)
 * against the rule, from the moments of the included sessions' scores.
 */
export function ratingPrecision(moments: ReadonlyMap<string, ScoreMoments>, expected: Iterable<string>, rule: StopRule): JobPrecision {
  const level = levelOf(rule);
  const stimuli = [...new Set(expected)].map((stimulus): StimulusPrecision => {
    const m = moments.get(stimulus) ?? { n: 0, sum: 0, squares: 0 };
    const halfWidth = meanHalfWidth(m, level);
    return { stimulus, n: m.n, estimate: m.n > 0 ? m.sum / m.n : null, halfWidth, reached: halfWidth !== null && halfWidth <= rule.ciHalfWidth };
  });
  return summarise('MOS', rule, stimuli);
}

/** One content's (scene's) comparisons: its stimuli and wins[i][j] = times i was preferred to j. */
export interface SceneCounts {
  stimuli: readonly string[];
  wins: CountMatrix;
}

/**
 * Pair comparisons: each scene's posterior (ASAP), its means centred on 0 and in JOD, against the rule. A stimulus
 * compared with nothing yet keeps the prior's width, which no target under it accepts.
 */
export function pairedPrecision(scenes: Iterable<SceneCounts>, rule: StopRule, nameOf: (scene: SceneCounts, stimulus: string) => string = (_, s) => s): JobPrecision {
  const z = normalQuantile((1 + levelOf(rule)) / 2, 0, 1);
  const stimuli: StimulusPrecision[] = [];
  for (const scene of scenes) {
    const n = scene.stimuli.length;
    if (n === 0) continue;
    const comparisons = new Array<number>(n).fill(0);
    const at = (i: number, j: number) => (scene.wins instanceof Float64Array ? scene.wins[i * n + j]! : (scene.wins as ArrayLike<ArrayLike<number>>)[i]![j]!);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        comparisons[i]! += at(i, j) + at(j, i);
      }
    }
    if (n === 1) {
      stimuli.push({ stimulus: nameOf(scene, scene.stimuli[0]!), n: 0, estimate: null, halfWidth: null, reached: false });
      continue;
    }
    const posterior = asapPosterior(scene.wins);
    let centre = 0;
    for (const m of posterior.mean) centre += m / n;
    scene.stimuli.forEach((name, i) => {
      const halfWidth = z * posterior.std[i]! * JOD_PER_ASAP_UNIT;
      stimuli.push({
        stimulus: nameOf(scene, name),
        n: comparisons[i]!,
        estimate: (posterior.mean[i]! - centre) * JOD_PER_ASAP_UNIT,
        halfWidth,
        reached: comparisons[i]! > 0 && halfWidth <= rule.ciHalfWidth,
      });
    });
  }
  return summarise('JOD', rule, stimuli);
}

/** What the report states about the rule: the rule, how many stimuli reached it, and when it closed the job. */
export interface StoppingSummary {
  scale: JobPrecision['scale'];
  ciHalfWidth: number;
  level: number;
  reached: number;
  total: number;
  /** When every stimulus first reached it and the job closed to new participants; null while it has not. */
  reachedAt: string | null;
}

export const stoppingSummary = (precision: JobPrecision, reachedAt: string | null): StoppingSummary => ({
  scale: precision.scale,
  ciHalfWidth: precision.ciHalfWidth,
  level: precision.level,
  reached: precision.reached,
  total: precision.total,
  reachedAt,
});

/** The report's methods line for the rule. */
export function stoppingMethod(s: StoppingSummary): string {
  const rule = `Stopping rule: every stimulus's ${Number((s.level * 100).toFixed(1))} % interval within ± ${s.ciHalfWidth} on the ${s.scale} scale`;
  return s.reachedAt
    ? `${rule}; it closed the job to new participants at ${s.reachedAt}.`
    : `${rule}; not reached yet: ${s.reached} of ${s.total} stimuli are within it, and the job takes new participants.`;
}
