import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyse } from './analyse.js';
import type { MldsReport, PairedReport, RatingReport } from './report-types.js';
import { chartSpecs, writeReport } from './report/write-report.js';
import type { PairedVote, RatingVote, TripletVote } from './types.js';

const options = { resamples: 0, generatedAt: new Date('2024-06-01T12:00:00Z') };
const rating = async (votes: RatingVote[], screening: 'none' | 'correlation' = 'none') =>
  (await analyse({ family: 'rating', protocol: 'absolute_category_rating', votes }, { ...options, screening })) as RatingReport;
const paired = async (votes: PairedVote[], resamples = 0) => (await analyse({ family: 'paired', protocol: 'pair_comparison', votes }, { ...options, resamples })) as PairedReport;
/** `n` votes of `winner` over `loser` by each observer. */
const wins = (observers: string[], winner: string, loser: string, n = 1): PairedVote[] =>
  observers.flatMap((observer) => Array.from({ length: n }, () => ({ observer, a: winner, b: loser, winner })));

async function pageOf(report: Awaited<ReturnType<typeof analyse>>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'glimpse-warnings-'));
  await writeReport(dir, report);
  return readFileSync(join(dir, 'report.html'), 'utf8');
}

describe('warnings in report.json and report.html', () => {
  it('one stimulus: the correlation rules reject no one, and the report says why', async () => {
    const votes = ['o1', 'o2', 'o3', 'o4'].map((observer, i) => ({ observer, stimulus: 's', score: 2 + (i % 3) }));
    const report = await rating(votes, 'correlation');
    expect(report.observers.map((o) => o.rejected.pearson || o.rejected.spearman)).toEqual([false, false, false, false]);
    expect(report.screening.kept).toBe(4);
    expect(report.warnings).toEqual([expect.stringMatching(/^Only one stimulus: the correlation rules cannot apply/)]);
    const html = await pageOf(report);
    expect(html).toContain('<section id="warnings" class="warnings"><h2>Warnings</h2><ul><li>Only one stimulus');
  });

  it('one observer: screening and the subject model mean nothing', async () => {
    const report = await rating(['a', 'b', 'c'].map((stimulus, j) => ({ observer: 'o1', stimulus, score: j + 2 })));
    expect(report.warnings).toEqual([expect.stringMatching(/^Only one observer: the screenings .* mean nothing/)]);
    expect((await paired(wins(['o1'], 'x', 'y', 3).concat(wins(['o1'], 'y', 'x')))).warnings[0]).toMatch(/^Only one observer: no bootstrap CIs/);
  });

  it('a healthy study has no warning and no warnings section', async () => {
    const votes = ['o1', 'o2', 'o3'].flatMap((observer, i) => ['a', 'b', 'c'].map((stimulus, j) => ({ observer, stimulus, score: 1 + ((i + 2 * j) % 5) })));
    const report = await rating(votes);
    expect(report.warnings).toEqual([]);
    expect(await pageOf(report)).not.toContain('id="warnings"');
  });

  it('unanimous pairs: says which distances are not identified (x > y > z, no contrary vote)', async () => {
    const votes = [...wins(['o1', 'o2', 'o3'], 'x', 'y', 2), ...wins(['o1', 'o2', 'o3'], 'y', 'z', 2), ...wins(['o1', 'o2', 'o3'], 'x', 'z')];
    const report = await paired(votes);
    expect(report.separated).toEqual([{ part: 0, groups: [['x'], ['y'], ['z']] }]);
    expect(report.btPenalized).toBe(true);
    expect(report.warnings).toEqual([expect.stringContaining('Unanimous or separated data: no vote goes against the order {x} > {y} > {z}. The distances between these groups are not identified')]);
  });

  it('separated groups: only the distance between the groups is unidentified', async () => {
    // a and b disagree among themselves, c and d too, but the {a, b} beat {c, d} every time.
    const votes = [...wins(['o1'], 'a', 'b'), ...wins(['o2'], 'b', 'a'), ...wins(['o1'], 'c', 'd'), ...wins(['o2'], 'd', 'c'), ...wins(['o1', 'o2'], 'b', 'c'), ...wins(['o1', 'o2'], 'a', 'd')];
    const report = await paired(votes);
    expect(report.separated).toEqual([{ part: 0, groups: [['a', 'b'], ['c', 'd']] }]);
    expect(report.warnings.join(' ')).toContain('{a, b} > {c, d}');
  });

  it('disconnected comparison graph: warned, and each part drawn on its own axis', async () => {
    const votes = [...wins(['o1', 'o2'], 'x', 'y'), ...wins(['o3'], 'y', 'x'), ...wins(['o1', 'o2'], 'u', 'v'), ...wins(['o3'], 'v', 'u')];
    const report = await paired(votes, 20);
    expect(report.components).toBe(2);
    expect(report.parts).toEqual([['x', 'y'], ['u', 'v']]);
    expect(report.warnings).toEqual([expect.stringContaining('has 2 disconnected parts (part 1: x, y; part 2: u, v). Scores are comparable only within a part')]);
    const jodCharts = chartSpecs(report).filter((c) => c.title.startsWith('Thurstone'));
    expect(jodCharts.map((c) => c.title)).toEqual([
      'Thurstone Case V scale in JOD with 95 % bootstrap CI, part 1 of 2 (not comparable with the other parts).',
      'Thurstone Case V scale in JOD with 95 % bootstrap CI, part 2 of 2 (not comparable with the other parts).',
    ]);
    expect(jodCharts.map((c) => (c.spec as { data: { values: { label: string }[] } }).data.values.map((v) => v.label))).toEqual([['x', 'y'], ['u', 'v']]);
    // Ranks within each part: x and u are each first of their own part.
    expect(report.scale.map((s) => [s.stimulus, s.rank])).toEqual([['x', 1], ['y', 2], ['u', 1], ['v', 2]]);
    expect(chartSpecs(report).filter((c) => c.title.startsWith('Ranking plot'))).toHaveLength(2);
  });

  it('MLDS with unanimous responses: separated, the unidentified levels named', async () => {
    const votes: TripletVote[] = [];
    for (let rep = 0; rep < 3; rep++)
      for (let a = 0; a < 5; a++)
        for (let b = a + 1; b < 5; b++)
          for (let c = b + 1; c < 5; c++) if (c - b !== b - a) votes.push({ observer: 'o', s1: a, s2: b, s3: c, response: c - b > b - a ? 1 : 0 });
    const report = (await analyse({ family: 'triplet', protocol: 'triplet', votes }, options)) as MldsReport;
    expect(report.separated).toBe(true);
    expect(report.warnings).toEqual([expect.stringContaining('ψ of levels 1, 2, 3, 4 are not identified (SE > 100)')]);
    expect(report.scale.slice(1).every((s) => s.se > 100)).toBe(true);
  });
});
