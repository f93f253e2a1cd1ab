import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyse } from '../analyse.js';
import type { MldsReport, PairedReport, RatingReport } from '../report-types.js';
import { fixtureVotes } from '../test-support.js';
import type { PairedVote, RatingVote } from '../types.js';
import { collectRatingData } from '../rating/rating-data.js';
import { pairwiseSignificance } from '../rating/significance.js';
import { chartSpecs, writeReport } from './write-report.js';

const options = { generatedAt: new Date('2024-06-01T12:00:00Z') };

async function written(report: Awaited<ReturnType<typeof analyse>>): Promise<{ html: string; csv: (name: string) => string }> {
  const dir = mkdtempSync(join(tmpdir(), 'glimpse-sections-'));
  await writeReport(dir, report);
  return { html: readFileSync(join(dir, 'report.html'), 'utf8'), csv: (name) => readFileSync(join(dir, `${name}.csv`), 'utf8') };
}

/** Two contents (c1 with its hidden reference), conditions ref/low/high; each vote list is what 5 observers gave. */
function study(): RatingVote[] {
  const cells: Array<[string, string, string, boolean, number[]]> = [
    ['c1-ref', 'c1', 'ref', true, [5, 5, 4, 5, 5]],
    ['c1-low', 'c1', 'low', false, [1, 2, 3, 4, 5]],
    ['c1-high', 'c1', 'high', false, [2, 4, 5, 4, 5]],
    ['c2-low', 'c2', 'low', false, [2, 4, 5, 4, 5]],
    ['c2-high', 'c2', 'high', false, [4, 4, 5, 5, 5]],
  ];
  return cells.flatMap(([stimulus, content, condition, isReference, scores]) =>
    scores.map((score, i) => ({ observer: `o${i + 1}`, stimulus, content, condition, isReference, score })),
  );
}

describe('report sections a researcher expects', () => {
  it('rating: MOS per content and condition, one chart per content, DMOS chart, raw vote distribution', async () => {
    const report = (await analyse({ family: 'rating', protocol: 'absolute_category_rating', votes: study() }, options)) as RatingReport;
    const cell = (content: string, condition: string) => report.contents.find((c) => c.content === content && c.condition === condition);
    expect(cell('c1', 'low')).toMatchObject({ stimuli: 1, n: 5, mos: 3 });
    expect(cell('c2', 'high')).toMatchObject({ n: 5, mos: 4.6 });
    expect(report.distribution.scores).toEqual([
      { score: 1, votes: 1, share: 1 / 25 },
      { score: 2, votes: 3, share: 3 / 25 },
      { score: 3, votes: 1, share: 1 / 25 },
      { score: 4, votes: 8, share: 8 / 25 },
      { score: 5, votes: 12, share: 12 / 25 },
    ]);
    expect(report.distribution.stimuli.find((s) => s.stimulus === 'c1-low')?.counts).toEqual([1, 1, 1, 1, 1]);
    const titles = chartSpecs(report).map((c) => c.title);
    expect(titles).toContain('MOS per condition across contents: one line per content.');
    expect(titles.filter((t) => t.startsWith('Content '))).toEqual([
      'Content c1: MOS per condition with 95 % CI.',
      'Content c2: MOS per condition with 95 % CI.',
    ]);
    const c1 = chartSpecs(report).find((c) => c.title.startsWith('Content c1'))!.spec as { data: { values: { label: string; value: number }[] } };
    expect(c1.data.values.map((v) => [v.label, v.value])).toEqual([['ref', 4.8], ['low', 3], ['high', 4]]);
    expect(titles).toContain('DMOS per stimulus (hidden references at 5) with 95 % CI.');
    expect(titles).toContain('Distribution of the raw votes (all observers, before screening).');
    const { csv } = await written(report);
    expect(csv('votes-distribution')).toBe('score,votes,share\r\n1,1,0.04\r\n2,3,0.12\r\n3,1,0.04\r\n4,8,0.32\r\n5,12,0.48\r\n');
    expect(csv('contents').split('\r\n')[0]).toBe('content,condition,stimuli,n,mos,sd,se,ci95_low,ci95_high,ci95_t_low,ci95_t_high');
  });

  it('rating: pairwise significance between conditions, Welch t-test and Holm correction, stated', async () => {
    // Welch's t and Welch–Satterthwaite df from the groups' means and variances, written out.
    const report = (await analyse({ family: 'rating', protocol: 'absolute_category_rating', votes: study() }, options)) as RatingReport;
    const sig = report.significance;
    expect(sig.groupedBy).toBe('condition');
    expect(sig.pairs.map((p) => `${p.a}/${p.b}`)).toEqual(['ref/low', 'ref/high', 'low/high']);
    const refLow = sig.pairs[0]!;
    // ref: 5,5,4,5,5 (mean 4.8, var 0.2); low: c1 1..5 and c2 2,4,5,4,5 (mean 3.5, var 18.5/9).
    const [m1, v1, n1, m2, v2, n2] = [4.8, 0.2, 5, 3.5, 18.5 / 9, 10];
    const se2 = v1 / n1 + v2 / n2;
    expect(refLow.difference).toBeCloseTo(m1 - m2, 12);
    expect(refLow.t).toBeCloseTo((m1 - m2) / Math.sqrt(se2), 10);
    expect(refLow.df).toBeCloseTo(se2 ** 2 / ((v1 / n1) ** 2 / (n1 - 1) + (v2 / n2) ** 2 / (n2 - 1)), 10);
    // Holm: the smallest p times 3, the next times 2 (never below the one before), the largest times 1.
    const ps = sig.pairs.map((p) => p.p);
    const order = [...ps.keys()].sort((a, b) => ps[a]! - ps[b]!);
    let running = 0;
    const holm = new Array<number>(3);
    order.forEach((k, rank) => (holm[k] = running = Math.min(1, Math.max(running, ps[k]! * (3 - rank)))));
    expect(sig.pairs.map((p) => p.pHolm)).toEqual(holm.map((h) => expect.closeTo(h, 12)));
    expect(sig.pairs.map((p) => p.significant)).toEqual(holm.map((h) => h < 0.05));
    const { html } = await written(report);
    expect(html).toContain('Pairwise significance between conditions: Welch’s two-sample t-test (unequal variances), two-sided, on the votes of each group; Holm’s step-down correction over the 3 pairs tested; significant when the adjusted p &lt; 0.05');
  });

  it('Welch t-test equals R’s t.test on its sleep example: t = −1.8608, df = 17.776, p = 0.07939', async () => {
    const group1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
    const group2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];
    const votes = [...group1.map((score, i) => ({ observer: `a${i}`, stimulus: `s1-${i}`, condition: '1', score })), ...group2.map((score, i) => ({ observer: `b${i}`, stimulus: `s2-${i}`, condition: '2', score }))];
    const [pair] = pairwiseSignificance(await collectRatingData(votes, false)).pairs;
    expect(pair).toMatchObject({ a: '1', b: '2' });
    expect(pair!.t).toBeCloseTo(-1.8608, 4);
    expect(pair!.df).toBeCloseTo(17.776, 3);
    expect(pair!.p).toBeCloseTo(0.07939, 5);
    expect(pair!.pHolm).toBe(pair!.p); // one pair: nothing to correct
  });

  it('no significance table above 100 groups, and a note says why', async () => {
    const votes = ['o1', 'o2'].flatMap((observer, i) => Array.from({ length: 101 }, (_, j) => ({ observer, stimulus: `s${j}`, score: 1 + ((i + j) % 5) })));
    const report = (await analyse({ family: 'rating', protocol: 'absolute_category_rating', votes }, options)) as RatingReport;
    expect(report.significance).toMatchObject({ groupedBy: 'stimulus', groups: 101, pairs: [] });
    expect(report.notes).toContain('Pairwise significance not computed: 101 stimuli (more than 100); declare conditions to compare them.');
  });

  it('paired: ranking plot with bootstrap rank intervals', async () => {
    const votes: PairedVote[] = [];
    for (let o = 0; o < 12; o++) {
      const observer = `o${o}`;
      // a beats b 4 times in 5, b beats c 4 times in 5, a beats c always.
      for (let t = 0; t < 5; t++) {
        votes.push({ observer, a: 'a', b: 'b', winner: (o + t) % 5 === 0 ? 'b' : 'a' });
        votes.push({ observer, a: 'b', b: 'c', winner: (o + t) % 5 === 1 ? 'c' : 'b' });
        votes.push({ observer, a: 'a', b: 'c', winner: 'a' });
      }
    }
    const report = (await analyse({ family: 'paired', protocol: 'pair_comparison', votes }, { ...options, resamples: 50 })) as PairedReport;
    expect(report.scale.map((s) => [s.stimulus, s.rank])).toEqual([['a', 1], ['b', 2], ['c', 3]]);
    for (const s of report.scale) expect(s.rank_ci95).toEqual([s.rank, s.rank]);
    expect(chartSpecs(report).map((c) => c.title)).toContain('Ranking plot: rank by JOD with its 95 % bootstrap interval.');
  });

  it('MLDS: log-likelihood and AIC in the page, and the 0–1 scale with its CIs', async () => {
    const votes = await fixtureVotes<'mlds'>('mlds-quadruples.csv', 'maximum_likelihood_difference_scaling');
    const report = (await analyse({ family: 'mlds', protocol: 'maximum_likelihood_difference_scaling', votes }, { ...options, resamples: 40 })) as MldsReport;
    const top = report.scale.at(-1)!;
    expect(top.normalized).toBe(1);
    expect(top.normalizedCi95).toEqual([1, 1]);
    for (const s of report.scale.slice(1, -1)) {
      expect(s.normalizedCi95![0]).toBeLessThanOrEqual(s.normalized);
      expect(s.normalizedCi95![1]).toBeGreaterThanOrEqual(s.normalized);
    }
    const { html } = await written(report);
    expect(html).toContain('MLDS fit: log-likelihood and AIC');
    expect(html).toContain(`<td class="n">${Number(report.logLik.toFixed(4))}</td><td class="n">${Number(report.aic.toFixed(4))}</td>`);
    expect(chartSpecs(report).map((c) => c.title)).toContain('MLDS scale normalised to 0–1 (ψ/ψmax) with 95 % bootstrap CI.');
  });
});
