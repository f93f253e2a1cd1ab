import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyse } from '../analyse.js';
import { createRandom } from '../random.js';
import type { PairedReport } from '../report-types.js';
import { writeReport } from '../report/write-report.js';
import { readVotesCsv } from '../votes-csv.js';
import { fixturePath, maxAbsDiff, readFixtureJson } from '../test-support.js';
import type { PairedVote } from '../types.js';
import { analysePaired } from './paired.js';
import { collectPairedData } from './paired-data.js';
import { scaleThurstone } from './thurstone.js';

interface PwcmpScene { jod_mean0: number[]; jod_fix0: number[]; observers: string[]; L: number[]; dist_L: number[] }
interface PwcmpReference {
  conditions: string[];
  scenes: Record<string, PwcmpScene>;
  disconnected: { D: number[]; jod_mean0: number[] };
  unanimous: { D: number[]; jod_mean0: number[]; jod_fix0: number[] };
}
const reference = readFixtureJson<PwcmpReference>('pwcmp-reference.json');

/** pwcmp-tmo.csv rows of one scene (observer,scene,a,b,winner; no quoting in this file). */
function sceneVotes(scene: string): PairedVote[] {
  return readFileSync(fixturePath('pwcmp-tmo.csv'), 'utf8')
    .trim()
    .split(/\r?\n/)
    .slice(1)
    .map((line) => line.split(','))
    .filter((cells) => cells[1] === scene)
    .map(([observer, , a, b, winner]) => ({ observer, a, b, winner }));
}

/** Like pw_scale_table: all conditions in sorted order, also those a scene lacks. */
function withAllConditions(votes: PairedVote[]): PairedVote[] {
  const lead = reference.conditions.map((c, i) => ({ observer: '\u0000order', a: c, b: reference.conditions[(i + 1) % reference.conditions.length], winner: c }));
  return [...lead, ...votes];
}

describe('paired scaling equals pwcmp (pw_scale, pw_outlier_analysis) on its TMO example', () => {
  it.each(Object.keys(reference.scenes))('scene %s: JOD (mean0 and fix0) and L to 1e-6, dist_L to 1e-5', async (scene) => {
    const expected = reference.scenes[scene];
    // Number the conditions as pwcmp does, then drop the ordering votes again.
    const ordered = await collectPairedData(withAllConditions(sceneVotes(scene)), false);
    expect(ordered.stimuli).toEqual(reference.conditions);
    const data = await collectPairedData(sceneVotes(scene), false);
    const order = reference.conditions.map((c) => data.stimuli.indexOf(c));
    const result = analysePaired(data, { prior: 'pwcmp', anchor: null, resamples: 0, random: createRandom(1) });
    const jod = order.map((i) => result.scale[i].jod);
    expect(maxAbsDiff(jod, expected.jod_mean0)).toBeLessThan(1e-6);
    const anchored = analysePaired(data, { prior: 'pwcmp', anchor: reference.conditions[0], resamples: 0, random: createRandom(1) });
    expect(maxAbsDiff(order.map((i) => anchored.scale[i].jod), expected.jod_fix0)).toBeLessThan(1e-6);
    const observers = expected.observers.map((name) => result.observers.find((o) => o.observer === name));
    expect(maxAbsDiff(observers.map((o) => o?.logLik10PerPair ?? NaN), expected.L)).toBeLessThan(1e-6);
    // dist_L divides by the IQR of L, so Octave's own stopping error (≈1e-8 JOD) shows up ~100× larger.
    expect(maxAbsDiff(observers.map((o) => o?.distL ?? NaN), expected.dist_L)).toBeLessThan(1e-5);
  });

  it('bridges a disconnected design and keeps unanimous pairs finite, with pwcmp numbers', () => {
    const disconnected = scaleThurstone(Float64Array.from(reference.disconnected.D), 4);
    expect(disconnected.components).toBe(2);
    expect(disconnected.bridges).toEqual([[0, 2]]);
    expect(maxAbsDiff(disconnected.jod, reference.disconnected.jod_mean0)).toBeLessThan(1e-6);
    const unanimous = scaleThurstone(Float64Array.from(reference.unanimous.D), 3);
    expect(maxAbsDiff(unanimous.jod, reference.unanimous.jod_mean0)).toBeLessThan(1e-6);
    expect(maxAbsDiff(unanimous.jod.map((v) => v - unanimous.jod[0]), reference.unanimous.jod_fix0)).toBeLessThan(1e-6);
  });
});

describe('scenes: a votes CSV with a scene column is scaled and screened per scene, as pwcmp does', () => {
  it('report.scenes equals pwcmp per scene (JOD, L, dist_L), and finds the outliers that pooling hides', async () => {
    const votes = await readVotesCsv(fixturePath('pwcmp-tmo.csv'), 'pair_comparison');
    const report = (await analyse({ family: 'paired', protocol: 'pair_comparison', votes: votes as AsyncIterable<PairedVote> }, { resamples: 0 })) as PairedReport;
    expect(report.scenes.map((s) => s.scene).sort()).toEqual(Object.keys(reference.scenes).sort());
    for (const scene of report.scenes) {
      const expected = reference.scenes[scene.scene];
      const jod = new Map(scene.scale.map((r) => [r.stimulus, r.jod]));
      const present = reference.conditions.filter((c) => jod.has(c));
      expect(present.length).toBe(reference.conditions.length);
      expect(maxAbsDiff(reference.conditions.map((c) => jod.get(c) ?? NaN), expected.jod_mean0)).toBeLessThan(1e-6);
      const observers = expected.observers.map((name) => scene.observers.find((o) => o.observer === name));
      expect(maxAbsDiff(observers.map((o) => o?.logLik10PerPair ?? NaN), expected.L)).toBeLessThan(1e-6);
      expect(maxAbsDiff(observers.map((o) => o?.distL ?? NaN), expected.dist_L)).toBeLessThan(1e-5);
    }
    // pwcmp flags 2 observers in exhibition and 2 in rivoli; pooled over the scenes (one scale for all) the
    // flags are others: the per-scene check is the one pwcmp defines.
    const flagged = report.scenes.flatMap((s) => s.observers.filter((o) => o.outlier).map((o) => `${s.scene}/${o.observer}`));
    const expectedFlags = Object.entries(reference.scenes).flatMap(([scene, r]) => r.observers.filter((_, i) => r.dist_L[i] > 1.5).map((o) => `${scene}/${o}`));
    expect(flagged.sort()).toEqual(expectedFlags.sort());
    expect(flagged).toHaveLength(4);
    expect(report.observers.filter((o) => o.outlier).map((o) => o.observer)).toEqual(['F01']);
    expect(report.notes.join(' ')).toContain('Votes name 5 scenes');
    const dir = mkdtempSync(join(tmpdir(), 'glimpse-scenes-'));
    await writeReport(dir, report);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('flags 1 on the votes pooled over the scenes as possible outliers');
    expect(html).toMatch(/<tr><th>Scene exhibition<\/th><td>2 flagged: \w+, \w+<\/td><\/tr>/);
    expect(readFileSync(join(dir, 'scene-observers.csv'), 'utf8').split('\r\n')[0]).toBe('scene,observer,trials,pairs,loglik10_per_pair,dist_l,outlier');
  });
});
