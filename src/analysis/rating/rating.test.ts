import { describe, expect, it } from 'vitest';
import { createRandom } from '../random.js';
import type { RatingVote } from '../types.js';
import { stimulusDmos, stimulusMos } from './mos.js';
import { p910Model } from './p910.js';
import { analyseRating } from './rating.js';
import { collectRatingData } from './rating-data.js';
import { bt500Screening, correlationScreening, straightLining } from './screening.js';

const vote = (observer: string, stimulus: string, score: number, extra: Partial<RatingVote> = {}): RatingVote => ({ observer, stimulus, score, ...extra });

describe('MOS, cases computed by hand', () => {
  it('gives mean, SD (n − 1), SE, the normal (1.95996) and the t CI', async () => {
    const data = await collectRatingData([vote('a', 'x', 5), vote('b', 'x', 4), vote('c', 'x', 3), vote('a', 'y', 2), vote('b', 'y', 2), vote('c', 'y', 2)], false);
    const [x, y] = stimulusMos(data);
    expect(x.mos).toBe(4);
    expect(x.sd).toBe(1);
    expect(x.se).toBeCloseTo(1 / Math.sqrt(3), 15);
    expect(x.ci95[1] - x.mos).toBeCloseTo(1.95996 / Math.sqrt(3), 12);
    expect(x.ci95_t[1] - x.mos).toBeCloseTo(4.302652729911275 / Math.sqrt(3), 9); // t(0.975, 2)
    expect(y).toMatchObject({ mos: 2, sd: 0, n: 3 });
  });

  it('DMOS = MOS(PVS) − MOS(reference of the same content) + 5, clipped at 5 as the P.910 toolkit does', async () => {
    const votes = [
      vote('a', 'ref', 4, { content: 'c', isReference: true }),
      vote('b', 'ref', 4, { content: 'c', isReference: true }),
      vote('a', 'pvs', 3, { content: 'c' }),
      vote('b', 'pvs', 2, { content: 'c' }),
      vote('a', 'better', 5, { content: 'c' }),
      vote('a', 'orphan', 3, { content: 'd' }),
    ];
    const { rows, problems } = stimulusDmos(stimulusMos(await collectRatingData(votes, false)));
    expect(rows.find((r) => r.stimulus === 'pvs')).toMatchObject({ dmos: 3.5, dmosClipped: 3.5, reference: 'ref' });
    expect(rows.find((r) => r.stimulus === 'better')).toMatchObject({ dmos: 6, dmosClipped: 5 });
    expect(problems).toEqual(['content d: no hidden reference, no DMOS']);
  });
});

/** Observers with a bias and an inconsistency rating stimuli of known quality (sureal's generative model). */
function simulate(random: ReturnType<typeof createRandom>, stimuli: number, observers: number) {
  const quality = Array.from({ length: stimuli }, () => 1.5 + 3 * random.next());
  const rawBias = Array.from({ length: observers }, () => 0.4 * random.normal());
  const meanBias = rawBias.reduce((a, b) => a + b, 0) / observers;
  const bias = rawBias.map((b) => b - meanBias); // the model fixes mean(bias) = 0
  const inconsistency = Array.from({ length: observers }, () => 0.3 + 0.7 * random.next());
  const votes: RatingVote[] = [];
  for (let i = 0; i < observers; i++)
    for (let j = 0; j < stimuli; j++) votes.push(vote(`o${i}`, `s${j}`, quality[j] + bias[i] + inconsistency[i] * random.normal()));
  return { quality, bias, inconsistency, votes };
}

describe('P.910 Annex E model recovers a known truth', () => {
  it('quality, bias and inconsistency CIs cover the truth at the nominal rate (100 simulated studies)', async () => {
    let quality = 0;
    let qualityN = 0;
    let bias = 0;
    let inconsistency = 0;
    let observersN = 0;
    for (let study = 0; study < 100; study++) {
      const truth = simulate(createRandom(study), 20, 24);
      const model = p910Model(await collectRatingData(truth.votes, false));
      model.stimuli.forEach((s, j) => {
        qualityN++;
        if (s.ci95[0] <= truth.quality[j] && truth.quality[j] <= s.ci95[1]) quality++;
      });
      model.observers.forEach((o, i) => {
        observersN++;
        if (o.biasCi95[0] <= truth.bias[i] && truth.bias[i] <= o.biasCi95[1]) bias++;
        if (o.inconsistencyCi95[0] <= truth.inconsistency[i] && truth.inconsistency[i] <= o.inconsistencyCi95[1]) inconsistency++;
      });
    }
    const rates = { quality: quality / qualityN, bias: bias / observersN, inconsistency: inconsistency / observersN };
    console.info(`P.910 coverage: quality ${(rates.quality * 100).toFixed(1)} %, bias ${(rates.bias * 100).toFixed(1)} %, inconsistency ${(rates.inconsistency * 100).toFixed(1)} %`);
    expect(rates.quality).toBeGreaterThan(0.93);
    // sureal's bias SE (v_i/√n_i) treats the qualities as known, so its interval is a little narrow too.
    expect(rates.bias).toBeGreaterThan(0.9);
    // The χ² interval ignores that ψ and Δ were estimated (n − 1 − J/I degrees of freedom): a little narrow.
    expect(rates.inconsistency).toBeGreaterThan(0.88);
  });

  it('MOS CIs cover the true quality (bias mean 0) at the nominal rate', async () => {
    let covered = 0;
    let total = 0;
    for (let study = 0; study < 100; study++) {
      const truth = simulate(createRandom(1000 + study), 20, 24);
      stimulusMos(await collectRatingData(truth.votes, false)).forEach((s, j) => {
        total++;
        if (s.ci95_t[0] <= truth.quality[j] && truth.quality[j] <= s.ci95_t[1]) covered++;
      });
    }
    console.info(`MOS t-CI coverage: ${((covered / total) * 100).toFixed(1)} %`);
    expect(covered / total).toBeGreaterThan(0.93);
  });
});

describe('screenings find the observers they are meant to find', () => {
  it('BT.500 rejects a very inconsistent observer; correlation flags random and inconsistent ones; straight-lining a constant voter', async () => {
    const random = createRandom(9);
    const truth = simulate(random, 40, 20);
    const votes = truth.votes.map((v) => {
      if (v.observer === 'o0') return { ...v, score: Math.min(5, Math.max(1, Math.round(v.score + 2.5 * random.normal()))) }; // very noisy
      if (v.observer === 'o1') return { ...v, score: 1 + random.int(5) }; // random answers
      if (v.observer === 'o2') return { ...v, score: 3 }; // straight-liner
      return { ...v, score: Math.min(5, Math.max(1, Math.round(v.score))) };
    });
    const data = await collectRatingData(votes, false);
    const bt = bt500Screening(data);
    expect(data.observers.filter((_, i) => bt.rejected[i])).toEqual(expect.arrayContaining(['o0']));
    expect(bt.rejected.filter(Boolean).length).toBeLessThanOrEqual(3);
    const c = correlationScreening(data);
    expect(data.observers.filter((_, i) => c.pearsonRejected[i])).toEqual(expect.arrayContaining(['o0', 'o1', 'o2']));
    const lining = straightLining(data);
    expect(data.observers.filter((_, i) => lining.flagged[i])).toEqual(['o2']);
  });

  it('applies the chosen screening to the MOS and says how many were kept', async () => {
    const random = createRandom(10);
    const truth = simulate(random, 30, 12);
    const votes = truth.votes.map((v) => (v.observer === 'o0' ? { ...v, score: 1 + random.int(5) } : { ...v, score: Math.round(v.score) }));
    const all = await analyseRating(votes, { excludeFlagged: false, screening: 'none', correlationThreshold: 0.7, varianceThreshold: 0.15 });
    const screened = await analyseRating(votes, { excludeFlagged: false, screening: 'correlation', correlationThreshold: 0.7, varianceThreshold: 0.15 });
    expect(all.screening.kept).toBe(12);
    expect(screened.screening.kept).toBe(12 - screened.screening.correlation.rejected);
    expect(screened.observers.find((o) => o.observer === 'o0')).toMatchObject({ kept: false, rejected: { correlation: true } });
    expect(screened.stimuli[0].n).toBe(screened.screening.kept);
  });

  it('excludes flagged votes when asked and counts them', async () => {
    const votes = [vote('a', 'x', 5), vote('b', 'x', 1, { flagged: true }), vote('c', 'x', 4)];
    const kept = await analyseRating(votes, { excludeFlagged: true, screening: 'none', correlationThreshold: 0.7, varianceThreshold: 0.15 });
    expect(kept.counts).toMatchObject({ read: 3, flagged: 1, excluded: 1 });
    expect(kept.stimuli[0]).toMatchObject({ n: 2, mos: 4.5 });
  });
});
