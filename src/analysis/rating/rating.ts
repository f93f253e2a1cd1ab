/**
 * Rating-scale analysis (ACR, DSIS, acceptability): every screening method on all observers, then MOS, DMOS
 * and the P.910 Annex E model on the observers kept by the chosen screening (none by default).
 */
import type { RatingScreening, RatingVote, VoteSource } from '../types.js';
import {
  conditionMos,
  contentConditionMos,
  stimulusDmos,
  stimulusMos,
  voteDistribution,
  type ConditionMos,
  type ContentConditionMos,
  type StimulusDmos,
  type StimulusMos,
  type VoteDistribution,
} from './mos.js';
import { p910Model, type P910Model } from './p910.js';
import { collectRatingData, keepObservers, votesPerObserver, type RatingData } from './rating-data.js';
import { MAX_TESTED_GROUPS, pairwiseSignificance, type PairwiseSignificance } from './significance.js';
import { bt500Screening, correlationScreening, p913Screening, straightLining } from './screening.js';
import { MissingDataError } from '../missing.js';

export interface RatingObserver {
  observer: string;
  /** Votes (repetitions included). */
  n: number;
  /** Kept by the screening chosen for the MOS and the P.910 model. */
  kept: boolean;
  rejected: {
    bt500: boolean;
    p913: boolean;
    /** P.910 crowd rules: Pearson or Spearman r at or below its threshold, or straight-lining. */
    correlation: boolean;
    pearson: boolean;
    spearman: boolean;
    straightLining: boolean;
  };
  bt500: { p: number; q: number; stat1: number; stat2: number };
  p913: { bias: number; p: number; q: number; stat1: number; stat2: number };
  r_pearson: number;
  r_spearman: number;
  variance: number;
}

export interface ScreeningSummary {
  /** Screening whose kept observers feed the MOS and the P.910 model. */
  applied: RatingScreening;
  observers: number;
  kept: number;
  bt500: { rejected: number; allWouldBeRejected: boolean };
  p913: { rejected: number; allWouldBeRejected: boolean };
  correlation: {
    rejected: number;
    pearsonRejected: number;
    spearmanRejected: number;
    straightLining: number;
    pearsonThreshold: number;
    spearmanThreshold: number;
    threshold: number;
    varianceThreshold: number;
  };
}

export interface RatingResult {
  stimuli: StimulusMos[];
  conditions: ConditionMos[];
  /** MOS per (content, condition): each content's conditions, for one chart per content. */
  contents: ContentConditionMos[];
  dmos: StimulusDmos[] | null;
  /** Raw votes per score (all observers, before screening). */
  distribution: VoteDistribution;
  /** Welch t-tests between conditions (or stimuli), Holm-corrected, on the votes the MOS uses. */
  significance: PairwiseSignificance;
  observers: RatingObserver[];
  screening: ScreeningSummary;
  p910: P910Model;
  notes: string[];
  /** What the data cannot support (one stimulus, one observer); report.json `warnings`. */
  warnings: string[];
  counts: RatingData['counts'];
}

export async function analyseRating(
  source: VoteSource<RatingVote>,
  options: { excludeFlagged: boolean; screening: RatingScreening; correlationThreshold: number; varianceThreshold: number },
): Promise<RatingResult> {
  const data = await collectRatingData(source, options.excludeFlagged);
  if (data.stimuli.length === 0) throw new MissingDataError({ code: 'noRatingVotes' });
  const notes: string[] = [];
  if (data.inconsistentStimuli.length > 0) {
    notes.push(`${data.inconsistentStimuli.length} stimuli had rows with different condition, content or reference flags; the first row's values were used (${data.inconsistentStimuli.slice(0, 5).join(', ')}${data.inconsistentStimuli.length > 5 ? ', …' : ''}).`);
  }

  const bt500 = bt500Screening(data);
  const p913 = p913Screening(data);
  const correlation = correlationScreening(data, options.correlationThreshold);
  const lining = straightLining(data, options.varianceThreshold);
  const votes = votesPerObserver(data);
  const rejectedBy = (i: number): Record<RatingScreening, boolean> => ({
    none: false,
    bt500: bt500.rejected[i],
    p913: p913.rejected[i],
    correlation: correlation.pearsonRejected[i] || correlation.spearmanRejected[i] || lining.flagged[i],
  });
  const observers: RatingObserver[] = data.observers.map((observer, i) => ({
    observer,
    n: votes[i],
    kept: !rejectedBy(i)[options.screening],
    rejected: {
      bt500: bt500.rejected[i],
      p913: p913.rejected[i],
      correlation: rejectedBy(i).correlation,
      pearson: correlation.pearsonRejected[i],
      spearman: correlation.spearmanRejected[i],
      straightLining: lining.flagged[i],
    },
    bt500: { p: bt500.p[i], q: bt500.q[i], stat1: bt500.stat1[i], stat2: bt500.stat2[i] },
    p913: { bias: p913.bias[i], p: p913.p[i], q: p913.q[i], stat1: p913.stat1[i], stat2: p913.stat2[i] },
    r_pearson: correlation.pearson[i],
    r_spearman: correlation.spearman[i],
    variance: lining.variance[i],
  }));
  const count = (f: (o: RatingObserver) => boolean) => observers.filter(f).length;
  const warnings: string[] = [];
  if (data.stimuli.length === 1) {
    warnings.push(
      'Only one stimulus: the correlation rules cannot apply (no observer has an r with the MOS), so they reject no one; BT.500 and P.913 judge each observer on one vote, and the P.910 model cannot tell an observer’s bias from their inconsistency. Read the MOS only.',
    );
  } else if (correlation.notApplicable) warnings.push('No observer rated two stimuli: the correlation rules cannot apply and reject no one.');
  if (data.observers.length === 1) {
    warnings.push(
      'Only one observer: the screenings (BT.500, P.913, correlation) and the P.910 subject model (bias, inconsistency) mean nothing with a single observer, and the MOS is that observer’s own votes.',
    );
  }
  if (bt500.allWouldBeRejected) notes.push('BT.500: every observer met the rejection rule, so none was rejected (the standard’s proviso).');
  if (p913.allWouldBeRejected) notes.push('P.913 bias-removed BT.500: every observer met the rejection rule, so none was rejected.');

  const kept = options.screening === 'none' ? data : keepObservers(data, (i) => observers[i].kept);
  if (kept.observers.length === 0) throw new MissingDataError({ code: 'screeningRejectedAll', screening: options.screening });
  // P.913 (sureal BR_SR_MOS): the MOS of the kept observers' votes less each one's bias δ (estimated on all
  // observers). The P.910 model estimates biases itself, so it takes the votes as given.
  const scored = options.screening === 'p913' ? keepObservers({ ...data, score: p913.corrected }, (i) => observers[i].kept) : kept;
  if (options.screening === 'p913') notes.push('P.913 screening: MOS, SD, CIs, per-condition MOS and DMOS are of the bias-removed votes (vote − the observer’s δ), as sureal’s BR_SR_MOS.');
  const stimuli = stimulusMos(scored);
  let dmos: StimulusDmos[] | null = null;
  if (stimuli.some((s) => s.isReference)) {
    const result = stimulusDmos(stimuli);
    dmos = result.rows;
    notes.push(...result.problems);
  }
  const p910 = p910Model(kept);
  if (!p910.converged) notes.push(`P.910 Annex E model: no convergence after ${p910.iterations} iterations; the last iterate is reported (as sureal does).`);

  const significance = pairwiseSignificance(scored);
  if (significance.groups > MAX_TESTED_GROUPS) {
    notes.push(`Pairwise significance not computed: ${significance.groups} ${significance.groupedBy === 'condition' ? 'conditions' : 'stimuli'} (more than ${MAX_TESTED_GROUPS}); declare conditions to compare them.`);
  }
  return {
    stimuli,
    conditions: conditionMos(scored),
    contents: contentConditionMos(scored),
    distribution: voteDistribution(data),
    significance,
    dmos,
    observers,
    screening: {
      applied: options.screening,
      observers: observers.length,
      kept: kept.observers.length,
      bt500: { rejected: count((o) => o.rejected.bt500), allWouldBeRejected: bt500.allWouldBeRejected },
      p913: { rejected: count((o) => o.rejected.p913), allWouldBeRejected: p913.allWouldBeRejected },
      correlation: {
        rejected: count((o) => o.rejected.correlation),
        pearsonRejected: count((o) => o.rejected.pearson),
        spearmanRejected: count((o) => o.rejected.spearman),
        straightLining: count((o) => o.rejected.straightLining),
        pearsonThreshold: correlation.pearsonThreshold,
        spearmanThreshold: correlation.spearmanThreshold,
        threshold: options.correlationThreshold,
        varianceThreshold: options.varianceThreshold,
      },
    },
    p910,
    notes,
    warnings,
    counts: data.counts,
  };
}
