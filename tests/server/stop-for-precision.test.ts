import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, expect, it } from 'vitest';
import { addUser, signIn } from '../../testkit/console.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { timingEnvelopeOf } from '../../testkit/participants.js';
import { getPlaylist, json, postJson, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { jobFields, writeStudy } from '../../testkit/studies.js';

/**
 * Stopping for precision (issue 38, docs/quality.md): an ACR job with `quality.stopWhen` takes participants until
 * every stimulus's 95 % interval is within the target, then refuses new ones as a full study does, while a session
 * already running resumes and finishes; the console and the report say so.
 *
 * Each participant rates s1, s2, s3 one grade apart from the one before (5, 4, 5, 4, …): after n participants each
 * MOS has a Student-t half-width of 0.9187 at n = 4 and 0.6798 at n = 5, so a target of 0.8 is reached by the 5th.
 */

const SOURCES = ['s1.png', 's2.png', 's3.png'];
let mediaDir = '';
beforeAll(async () => {
  mediaDir = await mkdtemp(join(tmpdir(), 'glimpse-precision-media-'));
  for (const [i, file] of SOURCES.entries()) {
    await sharp({ create: { width: 8, height: 6, channels: 3, background: { r: 60 * i, g: 90, b: 30 } } }).png().toFile(join(mediaDir, file));
  }
});

const STOP = { ciHalfWidth: 0.8, level: 0.95 };
const study = (id: string) => ({
  id,
  media: mediaDir,
  job: jobFields('absolute_category_rating'),
  playlists: [{ stimuli: SOURCES.map((source) => ({ source })) }],
  quality: { rules: { minVariance: false, minCorrelation: false }, stopWhen: STOP },
});

describeEachDialect('stopping for precision', (dialect) => {
  const ctx = useServer(dialect);

  const arrive = (jobId: string, pid: string) => getPlaylist(ctx().app, '/api/getacr/' + jobId, `platform=prolific&PROLIFIC_PID=${pid}`);
  /** Participant k (0-based) rates every stimulus 5 − (k mod 2) and asks for the code. */
  async function rateAndFinish(playlist: GenericPlaylist, k: number) {
    for (const s of playlist.stimulis) {
      const score = 5 - (k % 2);
      const body = { stimuli_id: s.stimuliId, session_id: playlist.session_id, session_token: playlist.sessionToken, value: 5 - score, nbReplay: 0, logs: null, timing: timingEnvelopeOf({ media: s.source }) };
      expect((await postJson(ctx().app, '/api/ratings/', body)).statusCode).toBe(201);
    }
    const code = await ctx().app.inject(`/api/sessions/token/${playlist.sessionToken}`);
    expect(code.statusCode).toBe(200);
  }
  const reachedAt = async (jobId: string) =>
    (await ctx().storage.db.selectFrom('jobs').select('precision_reached_at').where('id', '=', jobId).executeTakeFirstOrThrow()).precision_reached_at;
  const sessionCount = async (jobId: string) =>
    Number((await ctx().storage.db.selectFrom('sessions').select((eb) => eb.fn.countAll<number>().as('n')).where('job_id', '=', jobId).executeTakeFirstOrThrow()).n);

  it('closes the job to new participants once every interval is within the target; a running session finishes', async () => {
    const file = await writeStudy(study('precise'));
    await ctx().importStudy(file);
    await addUser(ctx().storage, 'lead@lab.example');
    const owner = await signIn(ctx().app, 'lead@lab.example');

    for (let k = 0; k < 4; k++) {
      await rateAndFinish(json<GenericPlaylist>(await arrive('precise', `P${k}`)), k);
      expect(await reachedAt('precise')).toBeNull();
    }
    const before = json<{ stats: { status: string; precision: Record<string, any> } }>(await owner.get('/console/api/jobs/precise')).stats;
    expect(before.status).toBe('open');
    expect(before.precision).toMatchObject({ scale: 'MOS', ciHalfWidth: 0.8, level: 0.95, reached: 0, total: 3, reachedAt: null });
    expect(before.precision.stimuli[0].n).toBe(4);
    expect(before.precision.stimuli[0].halfWidth).toBeCloseTo(0.9187, 4);

    // Starts before the rule fires, finishes after it.
    const late = json<GenericPlaylist>(await arrive('precise', 'late'));
    await rateAndFinish(json<GenericPlaylist>(await arrive('precise', 'P4')), 4);
    const firedAt = await reachedAt('precise');
    expect(firedAt).not.toBeNull();

    const sessions = await sessionCount('precise');
    const refused = await arrive('precise', 'newcomer');
    expect(refused.statusCode).toBe(403);
    expect(json<{ error: string }>(refused).error).toBe('STUDY_FULL');
    expect(await sessionCount('precise')).toBe(sessions);

    const resumed = await arrive('precise', 'late');
    expect(resumed.statusCode).toBe(200);
    expect(json<GenericPlaylist>(resumed).session_id).toBe(late.session_id);
    await rateAndFinish(late, 5);
    expect(await reachedAt('precise')).toBe(firedAt);

    const after = json<{ stats: { status: string; precision: Record<string, any> } }>(await owner.get('/console/api/jobs/precise')).stats;
    expect(after.status).toBe('full');
    expect(after.precision).toMatchObject({ reached: 3, total: 3, reachedAt: firedAt });

    const { report } = json<{ report: { stopping: Record<string, unknown>; methods: string[] } }>(await owner.get('/console/api/jobs/precise/report.json'));
    expect(report.stopping).toMatchObject({ scale: 'MOS', ciHalfWidth: 0.8, level: 0.95, reachedAt: firedAt, reached: 3, total: 3 });
    expect(report.methods).toContain(`Stopping rule: every stimulus's 95 % interval within ± 0.8 on the MOS scale; it closed the job to new participants at ${firedAt}.`);

    // A stricter target in the study file, re-imported: the job takes participants again until it is reached.
    await writeFile(file, JSON.stringify({ ...study('precise'), media: 'media', quality: { rules: { minVariance: false, minCorrelation: false }, stopWhen: { ciHalfWidth: 0.3 } } }));
    await ctx().importStudy(file);
    expect(await reachedAt('precise')).toBeNull();
    expect((await arrive('precise', 'newcomer')).statusCode).toBe(200);
  });

  it('judges pair comparisons on the JOD scale from the posterior of each content', async () => {
    // A, B, C compared in every pair, each participant preferring A to B to C: the posterior half-widths (JOD) of
    // A and C are 1.449 after 4 participants and 1.399 after 5 (B narrower), so a target of 1.42 is reached by the 5th.
    const pairs = [
      ['s1.png', 's2.png'],
      ['s2.png', 's3.png'],
      ['s1.png', 's3.png'],
    ];
    await ctx().importStudy(
      await writeStudy({
        id: 'precise-pairs',
        media: mediaDir,
        job: jobFields('pair_comparison'),
        playlists: [{ stimuli: pairs.map(([sourceA, sourceB]) => ({ sourceA, sourceB, reversed: false })) }],
        quality: { stopWhen: { ciHalfWidth: 1.42 } },
      }),
    );
    for (let k = 0; k < 5; k++) {
      expect(await reachedAt('precise-pairs')).toBeNull();
      const playlist = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/precise-pairs', `platform=prolific&PROLIFIC_PID=Q${k}`));
      for (const s of playlist.stimulis) {
        // value 0: the option shown first, sourceA (not reversed), which is the better of each pair
        const body = { stimuli_id: s.stimuliId, session_id: playlist.session_id, session_token: playlist.sessionToken, value: 0, nbReplay: 0, logs: null, timing: timingEnvelopeOf({ media: s.sourceA }) };
        expect((await postJson(ctx().app, '/api/ratings/', body)).statusCode).toBe(201);
      }
      expect((await ctx().app.inject(`/api/sessions/token/${playlist.sessionToken}`)).statusCode).toBe(200);
    }
    expect(await reachedAt('precise-pairs')).not.toBeNull();
    const refused = await getPlaylist(ctx().app, '/api/getrandomtasks/precise-pairs', 'platform=prolific&PROLIFIC_PID=Q9');
    expect(json<{ error: string }>(refused).error).toBe('STUDY_FULL');
  });

  it('is refused for a protocol without a scale to judge', async () => {
    const file = await writeStudy({ ...study('mlds-stop'), job: jobFields('maximum_likelihood_difference_scaling') });
    await expect(ctx().importStudy(file)).rejects.toThrow(/stopWhen.*rating and pair comparison protocols/);
  });
});
