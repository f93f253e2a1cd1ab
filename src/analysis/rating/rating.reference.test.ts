import { describe, expect, it } from 'vitest';
import { fixtureVotes, maxAbsDiff, readFixtureJson } from '../test-support.js';
import type { RatingVote } from '../types.js';
import { conditionMos, stimulusDmos, stimulusMos } from './mos.js';
import { p910Model } from './p910.js';
import { collectRatingData, type RatingData } from './rating-data.js';
import { analyseRating } from './rating.js';
import { bt500Screening, correlationScreening, p913Screening } from './screening.js';

interface SurealResult {
  mos: { quality_scores: number[]; quality_scores_std: number[]; quality_ambiguity: number[] };
  dmos: { quality_scores: number[] };
  bt500: { observer_rejected: boolean[]; stat1: number[]; stat2: (number | null)[]; quality_scores: number[] };
  p913: { observer_rejected: boolean[]; stat1: number[]; stat2: (number | null)[]; quality_scores: number[] };
  pearson: { observer_rejected: boolean[]; stat1: number[] };
  spearman: { observer_rejected: boolean[]; stat1: number[] };
  p910: {
    quality_scores: number[];
    quality_scores_std: number[];
    observer_bias: number[];
    observer_bias_std: number[];
    observer_inconsistency: number[];
    observer_inconsistency_ci95: [number[], number[]];
    num_iter: number;
  };
}
interface SurealReference {
  stimuli: string[];
  observers: string[];
  'nflx-public': SurealResult;
  'nflx-corrupt-missing': SurealResult;
  repetitions: { votes: RatingVote[]; observers: string[] } & Pick<SurealResult, 'mos' | 'p910'> & { bt500: SurealResult['bt500'] };
}

const reference = readFixtureJson<SurealReference>('sureal-reference.json');

/** Our arrays in sureal's order (sureal keeps the dataset order; we keep first appearance). */
function inOrder<T>(names: string[], ours: string[], values: ArrayLike<T>): T[] {
  return names.map((name) => values[ours.indexOf(name)]);
}

// sureal's own tests check 4–8 decimals; we agree to rounding (measured max |Δ| ≈ 2e-15, see README).
const TOLERANCE = 1e-12;

describe.each(['nflx-public', 'nflx-corrupt-missing'] as const)('sureal agreement on %s', (fixture) => {
  const expected = reference[fixture];
  let data: RatingData;
  const load = async () => (data ??= await collectRatingData(await fixtureVotes<'rating'>(`${fixture}.csv`, 'absolute_category_rating'), false));

  it('MOS, SD and SE equal sureal MosModel', async () => {
    await load();
    const mos = stimulusMos(data);
    const byStimulus = (f: (m: (typeof mos)[number]) => number) => inOrder(reference.stimuli, data.stimuli, mos.map(f));
    expect(maxAbsDiff(byStimulus((m) => m.mos), expected.mos.quality_scores)).toBeLessThan(1e-12);
    expect(maxAbsDiff(byStimulus((m) => m.sd), expected.mos.quality_ambiguity)).toBeLessThan(1e-12);
    expect(maxAbsDiff(byStimulus((m) => m.se), expected.mos.quality_scores_std)).toBeLessThan(1e-12);
    expect(conditionMos(data).length).toBeGreaterThan(10);
  });

  it('DMOS equals sureal DmosModel', async () => {
    await load();
    const { rows, problems } = stimulusDmos(stimulusMos(data));
    expect(problems).toEqual([]);
    const dmos = new Map(rows.map((r) => [r.stimulus, r.dmos]));
    expect(maxAbsDiff(reference.stimuli.map((s) => dmos.get(s) ?? NaN), expected.dmos.quality_scores)).toBeLessThan(1e-12);
  });

  it('BT.500 and P.913 screenings reject the observers sureal rejects, with the same statistics', async () => {
    await load();
    const bt = bt500Screening(data);
    expect(inOrder(reference.observers, data.observers, bt.rejected)).toEqual(expected.bt500.observer_rejected);
    expect(maxAbsDiff(inOrder(reference.observers, data.observers, bt.stat1), expected.bt500.stat1)).toBeLessThan(1e-12);
    expect(maxAbsDiff(inOrder(reference.observers, data.observers, bt.stat2), expected.bt500.stat2)).toBeLessThan(1e-12);
    const p913 = p913Screening(data);
    expect(inOrder(reference.observers, data.observers, p913.rejected)).toEqual(expected.p913.observer_rejected);
    expect(maxAbsDiff(inOrder(reference.observers, data.observers, p913.stat1), expected.p913.stat1)).toBeLessThan(1e-12);
  });

  it.each(['bt500', 'p913'] as const)('--screening %s gives sureal’s MOS of the kept observers (P.913: bias-removed votes, BR_SR_MOS)', async (screening) => {
    const votes = await fixtureVotes<'rating'>(`${fixture}.csv`, 'absolute_category_rating');
    const result = await analyseRating(votes, { excludeFlagged: false, screening, correlationThreshold: 0.7, varianceThreshold: 0.15 });
    const mos = new Map(result.stimuli.map((m) => [m.stimulus, m.mos]));
    expect(maxAbsDiff(reference.stimuli.map((s) => mos.get(s) ?? NaN), expected[screening].quality_scores)).toBeLessThan(1e-12);
  });

  it('correlation screening equals sureal SR_MOS_PCC / SR_MOS_SRCC', async () => {
    await load();
    const c = correlationScreening(data);
    expect(maxAbsDiff(inOrder(reference.observers, data.observers, c.pearson), expected.pearson.stat1)).toBeLessThan(1e-12);
    expect(maxAbsDiff(inOrder(reference.observers, data.observers, c.spearman), expected.spearman.stat1)).toBeLessThan(1e-12);
    expect(inOrder(reference.observers, data.observers, c.pearsonRejected)).toEqual(expected.pearson.observer_rejected);
    expect(inOrder(reference.observers, data.observers, c.spearmanRejected)).toEqual(expected.spearman.observer_rejected);
  });

  it('P.910 Annex E model equals sureal MLE_CO_AP2', async () => {
    await load();
    const model = p910Model(data);
    const s = (f: (x: (typeof model.stimuli)[number]) => number) => inOrder(reference.stimuli, data.stimuli, model.stimuli.map(f));
    const o = (f: (x: (typeof model.observers)[number]) => number) => inOrder(reference.observers, data.observers, model.observers.map(f));
    const p = expected.p910;
    expect(model.iterations).toBe(p.num_iter);
    expect(maxAbsDiff(s((x) => x.quality), p.quality_scores)).toBeLessThan(TOLERANCE);
    expect(maxAbsDiff(s((x) => x.qualitySe), p.quality_scores_std)).toBeLessThan(TOLERANCE);
    expect(maxAbsDiff(o((x) => x.bias), p.observer_bias)).toBeLessThan(TOLERANCE);
    expect(maxAbsDiff(o((x) => x.biasSe), p.observer_bias_std)).toBeLessThan(TOLERANCE);
    expect(maxAbsDiff(o((x) => x.inconsistency), p.observer_inconsistency)).toBeLessThan(TOLERANCE);
    const low = o((x) => x.inconsistency - x.inconsistencyCi95[0]);
    const high = o((x) => x.inconsistencyCi95[1] - x.inconsistency);
    expect(maxAbsDiff(low, p.observer_inconsistency_ci95[0])).toBeLessThan(TOLERANCE);
    expect(maxAbsDiff(high, p.observer_inconsistency_ci95[1])).toBeLessThan(TOLERANCE);
  });
});

describe('sureal agreement with repetitions (test_dataset_os_as_dict_with_repetitions)', () => {
  const rep = reference.repetitions;
  it('MOS, BT.500 and the P.910 model treat repetitions as sureal does', async () => {
    const data = await collectRatingData(rep.votes, false);
    const stimuli = ['baz1.png', 'baz2.png', 'baz3.png'];
    const mos = stimulusMos(data);
    expect(maxAbsDiff(inOrder(stimuli, data.stimuli, mos.map((m) => m.mos)), rep.mos.quality_scores)).toBeLessThan(1e-12);
    expect(maxAbsDiff(inOrder(stimuli, data.stimuli, mos.map((m) => m.se)), rep.mos.quality_scores_std)).toBeLessThan(1e-12);
    const bt = bt500Screening(data);
    expect(maxAbsDiff(inOrder(rep.observers, data.observers, bt.stat1), rep.bt500.stat1)).toBeLessThan(1e-12);
    const model = p910Model(data);
    expect(maxAbsDiff(inOrder(stimuli, data.stimuli, model.stimuli.map((x) => x.quality)), rep.p910.quality_scores)).toBeLessThan(TOLERANCE);
    expect(maxAbsDiff(inOrder(stimuli, data.stimuli, model.stimuli.map((x) => x.qualitySe)), rep.p910.quality_scores_std)).toBeLessThan(TOLERANCE);
    expect(maxAbsDiff(inOrder(rep.observers, data.observers, model.observers.map((x) => x.bias)), rep.p910.observer_bias)).toBeLessThan(TOLERANCE);
    expect(maxAbsDiff(inOrder(rep.observers, data.observers, model.observers.map((x) => x.inconsistency)), rep.p910.observer_inconsistency)).toBeLessThan(TOLERANCE);
  });
});
