import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import sharp from 'sharp';
import { beforeAll, expect, it } from 'vitest';
import type { MldsReport, PairedReport, RatingReport } from '../../src/analysis/index.js';
import { createRandom } from '../../src/analysis/index.js';
import { jobReport } from '../../src/server/report/job-report.js';
import { cli, useCliEnvironment } from '../../testkit/cli.js';
import { parseCsv } from '../../testkit/csv.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { getPlaylist, json, postJson, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { jobFields, writeStudy } from '../../testkit/studies.js';

/**
 * `report JOBID`: simulated participants answer through the API from a known truth, and the report of the stored
 * job recovers it. The ACR index conversion (stored 0 = Excellent) and the reversed display (stored value
 * positional) must not flip anything.
 */

const FILES = ['s1.png', 's2.png', 's3.png', 's4.png', 's5.png', 's6.png'];
let mediaDir = '';
beforeAll(async () => {
  mediaDir = await mkdtemp(join(tmpdir(), 'glimpse-report-media-'));
  for (const [i, file] of FILES.entries()) {
    await sharp({ create: { width: 8, height: 6, channels: 3, background: { r: 40 * i, g: 90, b: 200 - 30 * i } } }).png().toFile(join(mediaDir, file));
  }
});

describeEachDialect('report of a stored job', (dialect) => {
  const ctx = useServer(dialect);
  useCliEnvironment(ctx);

  /** One participant: a session, then `value(stimulus)` posted for every stimulus of its playlist. */
  async function participate(path: string, i: number, value: (s: GenericPlaylist['stimulis'][number]) => number) {
    const playlist = json<GenericPlaylist>(await getPlaylist(ctx().app, path, `platform=prolific&PROLIFIC_PID=R${i}`));
    for (const s of playlist.stimulis) {
      const res = await postJson(ctx().app, '/api/ratings/', { stimuli_id: s.stimuliId, session_id: playlist.session_id, session_token: playlist.sessionToken, value: value(s), nbReplay: 0, logs: null });
      expect(res.statusCode).toBe(201);
    }
  }

  it('ACR: the MOS of each stimulus is its true quality on the 5 = Excellent scale, grouped by condition', async () => {
    const truth: Record<string, number> = { 's1.png': 4.6, 's2.png': 3.9, 's3.png': 3.1, 's4.png': 2.2, 's5.png': 1.6 };
    const study = {
      id: 'report-acr',
      media: mediaDir,
      job: jobFields('absolute_category_rating'),
      playlists: [{ stimuli: Object.keys(truth).map((source) => ({ source })) }],
      mediaAttributes: { 's1.png': { condition: 'high', content: 'c1' }, 's2.png': { condition: 'high', content: 'c2' }, 's4.png': { condition: 'low' } },
    };
    await ctx().importStudy(await writeStudy(study));
    const random = createRandom(7);
    for (let i = 0; i < 40; i++) {
      await participate('/api/getacr/report-acr', i, (s) => {
        const score = Math.min(5, Math.max(1, Math.round(truth[s.source!.split('/')[1]!]! + (random.next() - 0.5) * 1.6)));
        return 5 - score; // what the ACR dialog stores: the index, 0 = Excellent
      });
    }
    const report = (await jobReport(ctx().storage, 'report-acr', { mediaDir: ctx().mediaDir, resamples: 0 })) as RatingReport;
    expect(report.family).toBe('rating');
    const mos = Object.fromEntries(report.stimuli.map((s) => [s.stimulus, s]));
    for (const [stimulus, q] of Object.entries(truth)) {
      expect(mos[stimulus]!.n).toBe(40);
      expect(Math.abs(mos[stimulus]!.mos - q), stimulus).toBeLessThan(0.35);
    }
    expect(mos['s1.png']).toMatchObject({ condition: 'high', content: 'c1' });
    expect(report.conditions.map((c) => c.condition).sort()).toEqual(['high', 'low']);

    // The P.910 toolkit's votes per clip: the same MOS.
    const p910 = parseCsv((await cli(['export', 'report-acr', '--format', 'p910'])).out);
    expect(p910.map((r) => r.clip)).toEqual(Object.keys(truth));
    for (const row of p910) {
      expect(Number(row.n)).toBe(40);
      expect(Number(row.MOS)).toBeCloseTo(mos[row.clip!]!.mos, 5);
      expect(Number(row['95%CI'])).toBeCloseTo((1.96 * Number(row.std)) / Math.sqrt(40), 5);
    }
  });

  it('pair comparison with reversed displays: the JOD order is the true one', async () => {
    const quality: Record<string, number> = { 's1.png': 1.5, 's2.png': 0.5, 's3.png': -0.5, 's4.png': -1.5 };
    const names = Object.keys(quality);
    const pairs = names.flatMap((a, i) => names.slice(i + 1).map((b, k) => ({ sourceA: a, sourceB: b, reversed: (i + k) % 2 === 0 })));
    // The media's content is the pair's scene (pwcmp's `scene` column, and a per-scene scale in the report).
    const mediaAttributes = Object.fromEntries(names.map((n) => [n, { content: 'garden' }]));
    await ctx().importStudy(await writeStudy({ id: 'report-pair', media: mediaDir, job: jobFields('pair_comparison'), playlists: [{ stimuli: pairs }], mediaAttributes }));
    const random = createRandom(11);
    // Thurstone case V with σ = 1.4826 per JOD: P(a beats b) = Φ((q_a − q_b) / 1.4826).
    const phi = (z: number) => normalCdf(z, 0, 1);
    for (let i = 0; i < 60; i++) {
      await participate('/api/getrandomtasks/report-pair', i, (s) => {
        const [a, b] = [s.sourceA!.split('/')[1]!, s.sourceB!.split('/')[1]!];
        const winner = random.next() < phi((quality[a]! - quality[b]!) / 1.4826) ? a : b;
        const shownFirst = s.reversed ? b : a;
        return winner === shownFirst ? 0 : 1; // positional, as the dialog stores it
      });
    }
    const report = (await jobReport(ctx().storage, 'report-pair', { mediaDir: ctx().mediaDir, resamples: 50, pairedOutliers: false })) as PairedReport;
    const jod = Object.fromEntries(report.scale.map((r) => [r.stimulus, r.jod]));
    expect(names.map((n) => jod[n]!)).toEqual([...names.map((n) => jod[n]!)].sort((x, y) => y - x));
    expect(jod['s1.png']! - jod['s4.png']!).toBeGreaterThan(1.5);
    expect(report.scenes.map((s) => s.scene)).toEqual(['garden']);
    expect(report.scenes[0]!.scale.map((r) => r.jod)).toEqual(report.scale.map((r) => r.jod)); // one scene: the same scale

    // One row per comparison, pwcmp's columns, the media actually chosen.
    const rows = parseCsv((await cli(['export', 'report-pair', '--format', 'pairs'])).out);
    expect(rows).toHaveLength(60 * pairs.length);
    expect(Object.keys(rows[0]!)).toEqual(['observer', 'session', 'scene', 'condition_A', 'condition_B', 'is_A_selected']);
    expect(new Set(rows.map((r) => r.scene))).toEqual(new Set(['garden']));
    const s1Wins = rows.filter((r) => (r.condition_A === 's1.png' && r.is_A_selected === '1') || (r.condition_B === 's1.png' && r.is_A_selected === '0')).length;
    expect(s1Wins).toBeGreaterThan(0.6 * 60 * 3);
    expect((await cli(['export', 'report-pair', '--format', 'p910'])).err).toContain('--format p910 is for rating jobs');
  });

  it('MLDS quadruples: the levels come from mediaAttributes, the reversed display is undone', async () => {
    const psi: Record<number, number> = { 1: 0, 2: 1.2, 3: 1.8, 4: 2.1, 5: 2.3 };
    const levels = Object.fromEntries(FILES.slice(0, 5).map((f, i) => [f, { level: i + 1 }]));
    const quads = [
      [1, 2, 3, 4],
      [1, 3, 2, 5],
      [1, 2, 4, 5],
      [2, 3, 4, 5],
      [1, 4, 2, 3],
      [1, 5, 2, 4],
    ].map(([a, b, c, d], k) => ({ sourceA: `s${a}.png`, sourceB: `s${b}.png`, sourceC: `s${c}.png`, sourceD: `s${d}.png`, reversed: k % 2 === 1 }));
    await ctx().importStudy(await writeStudy({ id: 'report-mlds', media: mediaDir, job: jobFields('maximum_likelihood_difference_scaling'), playlists: [{ stimuli: quads }], mediaAttributes: levels }));
    const random = createRandom(5);
    const phi = (z: number) => normalCdf(z, 0, 1);
    const level = (src: string) => Number(src.split('/')[1]!.slice(1, 2));
    for (let i = 0; i < 80; i++) {
      await participate('/api/getmlds/report-mlds', i, (s) => {
        const [a, b, c, d] = [s.sourceA!, s.sourceB!, s.sourceC!, s.sourceD!].map(level) as [number, number, number, number];
        const delta = Math.abs(psi[d]! - psi[c]!) - Math.abs(psi[b]! - psi[a]!);
        const secondMore = random.next() < phi(delta);
        // Top pair 0, bottom 1; reversed puts (C, D) on top.
        const bottomMore = s.reversed ? !secondMore : secondMore;
        return bottomMore ? 1 : 0;
      });
    }
    const report = (await jobReport(ctx().storage, 'report-mlds', { mediaDir: ctx().mediaDir, resamples: 0 })) as MldsReport;
    const values = report.scale.map((r) => r.value);
    expect(report.scale.map((r) => r.level)).toEqual([1, 2, 3, 4, 5]);
    // Increasing, like the truth (a flipped response would make it decrease).
    for (let k = 1; k < values.length; k++) expect(values[k]!).toBeGreaterThan(values[k - 1]!);
    expect(values[4]!).toBeGreaterThan(1.2);

    // The R MLDS data frame: resp and the ranks of the four levels.
    const frame = parseCsv((await cli(['export', 'report-mlds', '--format', 'mlds'])).out);
    expect(frame).toHaveLength(80 * quads.length);
    expect(Object.keys(frame[0]!)).toEqual(['resp', 'S1', 'S2', 'S3', 'S4']);
    expect(new Set(frame.map((r) => `${r.S1}${r.S2}${r.S3}${r.S4}`))).toEqual(new Set(['1234', '1325', '1245', '2345', '1423', '1524']));
  });

  it('timing: each answer’s envelope is summarised as its vote is read, and flags (or drops) the mistimed ones', async () => {
    await ctx().importStudy(await writeStudy({ id: 'report-timing', media: mediaDir, job: jobFields('absolute_category_rating'), playlists: [{ stimuli: FILES.slice(0, 3).map((source) => ({ source })) }] }));
    const size = { width: 800, height: 600 };
    const envelope = (droppedFrames: number) => ({
      v: 2,
      plays: [[{ label: 'A', media: ['s1.png'], requestedFrames: 60, shownFrames: 60, onsetMs: 100, offsetMs: 1100, droppedFrames, refreshMs: 16.67, endedBy: 'duration' }]],
      refreshMs: 16.67,
      timeOrigin: 1,
      window: { inner: size, outer: size, screen: size, available: size, document: size, zoom: 1, isfullScreen: false },
    });
    for (let i = 0; i < 4; i++) {
      const playlist = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getacr/report-timing', `platform=prolific&PROLIFIC_PID=T${i}`));
      for (const [k, s] of playlist.stimulis.entries()) {
        const timing = envelope(i === 0 && k === 0 ? 2 : 0); // one answer dropped two frames
        const res = await postJson(ctx().app, '/api/ratings/', { stimuli_id: s.stimuliId, session_id: playlist.session_id, session_token: playlist.sessionToken, value: 1, nbReplay: 0, logs: null, timing });
        expect(res.statusCode).toBe(201);
      }
    }
    const report = (await jobReport(ctx().storage, 'report-timing', { mediaDir: ctx().mediaDir, resamples: 0 })) as RatingReport;
    expect(report.timing).toMatchObject({ trials: 12, flaggedTrials: 1 });
    expect(report.timing!.flagged[0]!.reasons).toEqual(['A: 2 dropped frames']);
    expect(report.votes).toMatchObject({ read: 12, flagged: 1, excluded: 0 });
    const excluding = (await jobReport(ctx().storage, 'report-timing', { mediaDir: ctx().mediaDir, resamples: 0, excludeFlagged: true })) as RatingReport;
    expect(excluding.votes).toMatchObject({ flagged: 1, excluded: 1 });
    expect(excluding.stimuli.reduce((n, s) => n + s.n, 0)).toBe(11);
  });

  it('the CLI writes report.html, report.json and the CSV tables of a job, and says what is missing', async () => {
    await ctx().importStudy(await writeStudy({ id: 'report-cli', media: mediaDir, job: jobFields('acceptability_annoyance'), playlists: [{ stimuli: FILES.slice(0, 3).map((source) => ({ source })) }] }));
    for (let i = 0; i < 5; i++) await participate('/api/getacr/report-cli', i, () => i % 3);
    const out = join(ctx().database.dir, 'report');
    const res = await cli(['report', 'report-cli', '--out', out]);
    expect(res.code, res.err).toBe(0);
    expect(res.out).toContain(join(out, 'report.html'));
    const html = await readFile(join(out, 'report.html'), 'utf8');
    expect(html).toContain('job report-cli');
    expect(html).not.toMatch(/(src|href)="https?:/);
    const reportJson = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
    expect(reportJson.stimuli).toHaveLength(3);
    expect((await cli(['report', 'no-such-job', '--out', out])).err).toBe('no job no-such-job\n');
    expect((await cli(['report', '--out', out])).code).toBe(1);
    // An MLDS job without levels says which media lacks one.
    await ctx().importStudy(await writeStudy({ id: 'report-nolevel', media: mediaDir, job: jobFields('maximum_likelihood_difference_scaling'), playlists: [{ stimuli: [{ sourceA: 's1.png', sourceB: 's2.png', sourceC: 's3.png', sourceD: 's4.png' }] }] }));
    await participate('/api/getmlds/report-nolevel', 99, () => 0);
    const missing = await cli(['report', 'report-nolevel', '--out', out]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('media s1.png has no level');
  });
});
