import { SESSION_TOKEN_HEADER } from '../../src/contract/headers.js';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { pointCloud, texturedMesh, writeCloud, writeMesh } from '../../scripts/demo/render-model.js';
import type { CameraSample, ViewsRecord } from '../../src/contract/payloads.js';
import type { RatingReport } from '../../src/analysis/index.js';
import { chartSpecs } from '../../src/analysis/index.js';
import { exportJob } from '../../src/server/export/export.js';
import { jobReport } from '../../src/server/report/job-report.js';
import { addUser, signIn } from '../../testkit/console.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { countRows, getPlaylist, json, postJson, ratingBody, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { jobFields, writeStudy } from '../../testkit/studies.js';

/** `n` inspect poses `stepMs` apart, turning evenly through `degrees` of azimuth at 10° elevation. */
function turning(n: number, stepMs: number, degrees: number): ViewsRecord {
  return { v: 1, mode: 'inspect', samples: Array.from({ length: n }, (_, i) => ({ play: 0, frame: i, t: 500 + i * stepMs, az: (degrees * i) / (n - 1), el: 10, dist: 1 })) };
}

/** An inspect-mode camera path: `n` poses, one per frame at 60 Hz, swinging in azimuth and zooming in. */
function inspectViews(n: number, play = 0): ViewsRecord {
  const samples: CameraSample[] = Array.from({ length: n }, (_, i) => ({ play, frame: i, t: 1000 + i * 16.7, az: i * 0.5 - 30.25, el: 10 + (i % 7), dist: 1 - i / (4 * n) }));
  return { v: 1, mode: 'inspect', samples };
}

describeEachDialect('camera poses of 3D objects', (dialect) => {
  const ctx = useServer(dialect);

  async function session(quality?: object): Promise<GenericPlaylist> {
    const file = await writeStudy({ id: 'views', job: jobFields('absolute_category_rating', { category_id: 5 }), playlists: [{ stimuli: [{ source: 'knot.glb' }, { source: 'dome.ply' }, { source: 'red.png' }] }], ...(quality ? { quality } : {}) });
    const media = join(dirname(file), 'media');
    await writeMesh(await texturedMesh('knot', { segments: 30, rings: 6 }), join(media, 'knot.glb'));
    await writeCloud(pointCloud('dome', 200), join(media, 'dome.ply'));
    await ctx().importStudy(file);
    return json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getacr/views'));
  }
  // As the page posts a rating: with its session token header (a body over 16 KiB is read only with it).
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    postJson(ctx().app, '/api/ratings/', body, { [SESSION_TOKEN_HEADER]: (body as { session_token: string }).session_token, ...headers });
  const exported = async (format: 'json' | 'csv' = 'json') => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    await exportJob(ctx().storage, 'views', { table: 'views', format, out });
    return Buffer.concat(chunks).toString();
  };

  it('stores the poses posted with a rating, small or large, and exports one JSON Lines row per sample', async () => {
    const p = await session();
    const [knot, dome, image] = p.stimulis.map((s) => s.stimuliId) as [number, number, number];
    const small = inspectViews(3);
    // 4,000 samples: over the 16 KiB a body is parsed on the event loop, so the worker path is taken.
    const large = { v: 1, mode: 'turntable', samples: inspectViews(4000, 1).samples } satisfies ViewsRecord;
    const key = { 'idempotency-key': 'views-1' };
    const first = await post(ratingBody(p, knot, { value: 4, views: small }), key);
    expect(first.statusCode).toBe(201);
    expect((await post(ratingBody(p, knot, { value: 4, views: small }), key)).statusCode).toBe(200);
    expect(JSON.stringify(ratingBody(p, dome, { views: large })).length).toBeGreaterThan(16 * 1024);
    expect((await post(ratingBody(p, dome, { value: 2, views: large }))).statusCode).toBe(201);
    expect((await post(ratingBody(p, image, { value: 3 }))).statusCode).toBe(201);

    const stored = await ctx().storage.db.selectFrom('ratings').select(['stimulus_id', 'views']).orderBy('id').execute();
    expect(stored.map((r) => [r.stimulus_id, r.views === null ? null : JSON.parse(r.views)])).toEqual([[knot, small], [dome, large], [image, null]]);

    const lines = (await exported()).trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(3 + 4000);
    expect(lines[0]).toMatchObject({ rating_id: json(first).id, job_id: 'views', session_id: p.session_id, stimulus_id: knot, stimulus_position: 0, is_training: false, source: 'knot.glb', value: 4, mode: 'inspect', sample: 0, ...small.samples[0] });
    expect(lines.slice(0, 3).map((l) => [l.frame, l.az, l.el, l.dist])).toEqual(small.samples.map((s) => [s.frame, s.az, s.el, s.dist]));
    expect(lines[3 + 3999]).toMatchObject({ stimulus_id: dome, source: 'dome.ply', mode: 'turntable', sample: 3999, ...large.samples[3999] });
    // The CSV has the same rows, with a header.
    expect((await exported('csv')).trimEnd().split('\n')).toHaveLength(1 + 3 + 4000);
  });

  it('offers the camera poses as views.jsonl in the console, for a job with 3D objects only', async () => {
    const p = await session();
    expect((await post(ratingBody(p, p.stimulis[0].stimuliId, { value: 1, views: inspectViews(2) }))).statusCode).toBe(201);
    await addUser(ctx().storage, 'lead@example.org', { jobId: 'views', role: 'owner' });
    const lead = await signIn(ctx().app, 'lead@example.org');
    expect(json(await lead.get('/console/api/jobs/views')).downloads).toContain('views.jsonl');
    const file = await lead.get('/console/api/jobs/views/export?table=views&format=json');
    expect(file.statusCode).toBe(200);
    expect(file.body.trimEnd().split('\n').map((line) => JSON.parse(line).az)).toEqual([-30.25, -29.75]);
  });

  it('refuses malformed poses with 400, storing nothing', async () => {
    const p = await session();
    const stimulus = p.stimulis[0].stimuliId;
    const bad = [
      { v: 2, mode: 'inspect', samples: [] },
      { v: 1, mode: 'orbit', samples: [] },
      { v: 1, mode: 'inspect', samples: [{ play: 0, frame: 0, t: 1, az: 0, el: 0, dist: -1 }] },
      { v: 1, mode: 'inspect', samples: [{ play: 0, frame: 0, t: 1, az: 0, el: 0, dist: 1, zoom: 2 }] },
      // A large body with one bad sample at its end: validated in the worker.
      { v: 1, mode: 'inspect', samples: [...inspectViews(2000).samples, { play: 0, frame: 'x', t: 1, az: 0, el: 0, dist: 1 }] },
    ];
    for (const views of bad) {
      const res = await post(ratingBody(p, stimulus, { value: 3, views }));
      expect([res.statusCode, json(res).error]).toEqual([400, 'VALIDATION']);
    }
    expect(await countRows(ctx().storage, 'ratings')).toBe(0);
    expect(await exported()).toBe('');
  });

  it('screens inspection with minInspection (analysis only) and reports inspection time, coverage and zoom per object', async () => {
    const first = await session({ rules: { minInspection: { ms: 1000, azimuthDeg: 90 }, shownToEnd: false } });
    const second = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getacr/views'));
    const third = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getacr/views'));
    // Well inspected: 21 poses 100 ms apart (2,100 ms) through 180°; short: 6 poses (600 ms) through 30°.
    const takes = [[first, turning(21, 100, 180)], [second, turning(6, 100, 30)], [third, turning(11, 200, 120)]] as const;
    for (const [p, views] of takes) {
      for (const [i, s] of p.stimulis.entries()) expect((await post(ratingBody(p, s.stimuliId, { value: 2, ...(i < 2 ? { views } : {}) }))).statusCode).toBe(201);
      expect((await ctx().app.inject(`/api/sessions/token/${p.sessionToken}`)).statusCode).toBe(200);
    }
    const verdicts = await ctx().storage.db.selectFrom('session_verdicts').select(['session_id', 'accepted', 'included']).orderBy('session_id').execute();
    expect(verdicts.map((v) => [v.session_id, Number(v.accepted), Number(v.included)])).toEqual([[first.session_id, 1, 1], [second.session_id, 1, 0], [third.session_id, 1, 1]]);

    const report = (await jobReport(ctx().storage, 'views', { mediaDir: ctx().mediaDir, resamples: 0 })) as RatingReport;
    expect(report.views!.stimuli.map((v) => [v.stimulus, v.trials, v.observers, v.inspectMs.median, v.inspectMs.min, v.azimuthRangeDeg.min, v.zoom.median])).toEqual([
      ['dome.ply', 2, 2, 2150, 2100, 120, 1],
      ['knot.glb', 2, 2, 2150, 2100, 120, 1],
    ]);
    // 2,100 ms over 0°–180° at 10° elevation, 2,200 ms over 0°–120°: the cells at 0°–30° hold 4 + 3 poses of 100 and 200 ms.
    const knot = report.views!.stimuli[1]!;
    expect(knot.coverage.find((c) => c.azimuthDeg === 0)).toEqual({ azimuthDeg: 0, elevationDeg: 0, ms: 4 * 100 + 3 * 200, share: 1000 / 4300 });
    expect(knot.coverage.every((c) => c.elevationDeg === 0)).toBe(true);
    expect(chartSpecs(report).map((c) => c.title).filter((t) => t.startsWith('Viewpoint coverage'))).toEqual([
      'Viewpoint coverage of dome.ply in inspect mode: share of the inspection time per 30° × 15° cell (2 answers).',
      'Viewpoint coverage of knot.glb in inspect mode: share of the inspection time per 30° × 15° cell (2 answers).',
    ]);
  });
});
