import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, expect, it } from 'vitest';
import { judgeCompletedSession, screenJob } from '../../src/server/quality/screening.js';
import { allAcceptedSums } from '../../src/server/storage/quality-sums.js';
import { openStorage } from '../../src/server/storage/open.js';
import { recountLoads } from '../../src/server/storage/playlist-loads.js';
import { completeSession } from '../../src/server/storage/sessions.js';
import { withdraw } from '../../src/server/storage/withdrawals.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { contendAt, PG_POOL_CONNECTIONS } from '../../testkit/interleave.js';
import { sessionLogsOf, timingEnvelopeOf } from '../../testkit/participants.js';
import { getPlaylist, json, postJson, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { jobFields, writeStudy } from '../../testkit/studies.js';

/**
 * The running sums behind the on-line verdict (issue 26, docs/quality.md): after completions, session logs
 * that revise a verdict, exclusions and a re-judgement, they hold exactly what a full recount of the included
 * sessions gives; concurrent final requests of one session judge it once; the playlists' balancing counts equal a
 * recount of the sessions.
 */

const SOURCES = ['s1.png', 's2.png', 's3.png', 's4.png', 's5.png'];
const TRUTH: Record<string, number> = { 's1.png': 5, 's2.png': 4, 's3.png': 3, 's4.png': 2, 's5.png': 1 };
let mediaDir = '';
beforeAll(async () => {
  mediaDir = await mkdtemp(join(tmpdir(), 'glimpse-sums-media-'));
  for (const [i, file] of [...SOURCES, 'trap.png'].entries()) {
    await sharp({ create: { width: 8, height: 6, channels: 3, background: { r: 40 * i, g: 90, b: 200 - 30 * i } } }).png().toFile(join(mediaDir, file));
  }
});

const study = (id: string, fields: Record<string, unknown> = {}) => ({
  id,
  media: mediaDir,
  job: jobFields('absolute_category_rating', fields),
  playlists: [0, 1].map(() => ({ stimuli: [...SOURCES.map((source) => ({ source })), { source: 'trap.png', check: { kind: 'trap', answer: 1 } }] })),
  quality: { rules: { correlationAfterSessions: 3 } },
});

/** Logs that show the visual tests passed (Eligibility/visual, then the instructions). */
const passedVisualLogs = (sessionToken: string) =>
  sessionLogsOf(sessionToken, [
    { state: 'Eligibility', status: 'visual', time: 1 },
    { state: 'Instruction', status: 'ok', time: 2 },
    { state: 'Result', status: 'ok', time: 3 },
  ]);

describeEachDialect('running sums of the on-line verdict', (dialect) => {
  const ctx = useServer(dialect);

  /** Rates every stimulus: the truth shifted by `offset` (kept on the scale), the trap right unless `missTrap`. */
  async function rateAll(jobId: string, pid: string, opts: { offset?: number; missTrap?: boolean } = {}) {
    const res = await getPlaylist(ctx().app, '/api/getacr/' + jobId, `platform=prolific&PROLIFIC_PID=${pid}`);
    expect(res.statusCode).toBe(200);
    const playlist = json<GenericPlaylist>(res);
    for (const s of playlist.stimulis) {
      const file = s.source!.split('/').pop()!;
      const score = file === 'trap.png' ? (opts.missTrap ? 5 : 1) : Math.min(5, Math.max(1, TRUTH[file]! + (opts.offset ?? 0)));
      const body = { stimuli_id: s.stimuliId, session_id: playlist.session_id, session_token: playlist.sessionToken, value: 5 - score, nbReplay: 0, logs: null, timing: timingEnvelopeOf({ media: s.source }) };
      expect((await postJson(ctx().app, '/api/ratings/', body)).statusCode).toBe(201);
    }
    return playlist;
  }
  const code = async (token: string) => ctx().app.inject(`/api/sessions/token/${token}`);
  const logs = async (token: string) => postJson(ctx().app, '/api/sessionlogs/', passedVisualLogs(token));

  /** What a full recount gives: the ordinary scores of every session whose stored verdict includes it. */
  async function recount(jobId: string) {
    const rows = await ctx()
      .storage.db.selectFrom('ratings as r')
      .innerJoin('sessions as s', 's.id', 'r.session_id')
      .innerJoin('session_verdicts as v', 'v.session_id', 's.id')
      .innerJoin('stimuli as st', 'st.id', 'r.stimulus_id')
      .select(['s.id as session_id', 'st.spec', 'r.value'])
      .where('s.job_id', '=', jobId)
      .where('v.included', '=', 1)
      .execute();
    const byStimulus = new Map<string, { sum: number; squares: number; n: number }>();
    for (const r of rows) {
      const spec = JSON.parse(r.spec) as { source: string; check?: unknown };
      if (spec.check) continue;
      const s = byStimulus.get(spec.source) ?? { sum: 0, squares: 0, n: 0 };
      byStimulus.set(spec.source, { sum: s.sum + (5 - r.value), squares: s.squares + (5 - r.value) ** 2, n: s.n + 1 });
    }
    return { sessions: new Set(rows.map((r) => r.session_id)).size, byStimulus };
  }
  const sortedSums = (sums: { sessions: number; byStimulus: Map<string, { sum: number; squares: number; n: number }> } | null) =>
    sums && { sessions: sums.sessions, byStimulus: [...sums.byStimulus].filter(([, s]) => s.n !== 0).sort(([a], [b]) => a.localeCompare(b)) };

  /** The playlists' balancing counts as stored, and as a recount of the sessions gives them (lease: 60 minutes). */
  async function loadsAndRecount(jobId: string) {
    const db = ctx().storage.db;
    const stored = await db.selectFrom('playlist_loads').select(['playlist_id', 'sessions', 'included', 'running']).where('job_id', '=', jobId).orderBy('playlist_id').execute();
    const sessions = await db.selectFrom('sessions as s').leftJoin('session_verdicts as v', 'v.session_id', 's.id').select(['s.playlist_id', 's.completed_at', 'v.included']).where('s.job_id', '=', jobId).execute();
    const recounted = stored.map((p) => {
      const mine = sessions.filter((s) => s.playlist_id === p.playlist_id);
      return { playlist_id: p.playlist_id, sessions: mine.length, included: mine.filter((s) => s.completed_at && s.included !== 0).length, running: mine.filter((s) => !s.completed_at).length };
    });
    return { stored: stored.map((p) => ({ ...p, sessions: Number(p.sessions), included: Number(p.included), running: Number(p.running) })), recounted };
  }

  it('equal a full recount after completions, late logs, exclusions and a re-judgement', async () => {
    await ctx().importStudy(await writeStudy(study('sums', { visualTests: ['acuity'] })));
    const plan = [
      { pid: 'A1' },
      { pid: 'A2', offset: 1 },
      { pid: 'A3', missTrap: true },
      { pid: 'A4' },
      { pid: 'A5', offset: -1 },
      { pid: 'A6', logsFirst: true },
      { pid: 'A7', noLogs: true },
      { pid: 'A8', missTrap: true, logsFirst: true },
      { pid: 'A9' },
      { pid: 'A10', offset: 1 },
    ];
    const sessions: number[] = [];
    for (const p of plan) {
      const playlist = await rateAll('sums', p.pid, p);
      // The code first (the verdict cannot see the visual tests yet: excluded), then the logs revise it; or the reverse.
      if (p.logsFirst) expect((await logs(playlist.sessionToken!)).statusCode).toBe(201);
      expect((await code(playlist.sessionToken!)).statusCode).toBe(200);
      if (!p.logsFirst && !p.noLogs) expect((await logs(playlist.sessionToken!)).statusCode).toBe(201);
      sessions.push(playlist.session_id!);
      expect(sortedSums(await allAcceptedSums(ctx().storage, 'sums'))).toEqual(sortedSums(await recount('sums')));
    }
    // Who is in: everyone but the two who missed the trap and the one whose logs never came (visual tests unseen).
    const verdicts = await ctx().storage.db.selectFrom('session_verdicts').select(['session_id', 'included']).orderBy('session_id').execute();
    expect(verdicts.map((v) => v.included)).toEqual([1, 1, 0, 1, 1, 1, 0, 0, 1, 1]);
    expect((await allAcceptedSums(ctx().storage, 'sums'))!.sessions).toBe(7);
    const loads = await loadsAndRecount('sums');
    expect(loads.stored).toEqual(loads.recounted);

    // The last participant's logs come again (a beacon after the post): nothing moves.
    const before = sortedSums(await allAcceptedSums(ctx().storage, 'sums'));
    const last = await ctx().storage.db.selectFrom('sessions').select('token').where('id', '=', sessions.at(-1)!).executeTakeFirstOrThrow();
    expect((await logs(last.token)).statusCode).toBe(201);
    expect(sortedSums(await allAcceptedSums(ctx().storage, 'sums'))).toEqual(before);

    // A re-judgement (cli screen, the console's button) recounts everything and rebuilds the sums and the counts.
    await ctx().storage.db.deleteFrom('accepted_score_sums').execute();
    await screenJob(ctx().storage, 'sums');
    expect(sortedSums(await allAcceptedSums(ctx().storage, 'sums'))).toEqual(sortedSums(await recount('sums')));
    const rebuilt = await loadsAndRecount('sums');
    expect(rebuilt.stored).toEqual(rebuilt.recounted);
  });

  it('judges a session once when its final requests arrive together', async () => {
    await ctx().importStudy(await writeStudy(study('once')));
    for (const pid of ['B1', 'B2', 'B3', 'B4']) {
      const playlist = await rateAll('once', pid);
      // The page posts its logs as it asks for the code; a retry of the code comes on top.
      const answers = await Promise.all([code(playlist.sessionToken!), postJson(ctx().app, '/api/sessionlogs/', passedVisualLogs(playlist.sessionToken!)), code(playlist.sessionToken!)]);
      expect(answers.map((a) => a.statusCode)).toEqual([200, 201, 200]);
      expect(json(answers[0]!).verification_code).toBe(json(answers[2]!).verification_code);
    }
    // Straight to the judge as well: three at once on a completed session that has no verdict yet.
    const playlist = await rateAll('once', 'B5');
    await completeSession(ctx().storage, playlist.session_id!);
    const verdicts = await Promise.all([1, 2, 3].map(() => judgeCompletedSession(ctx().storage, playlist.session_id!)));
    expect(new Set(verdicts.map((v) => JSON.stringify(v))).size).toBe(1);
    expect(await ctx().storage.db.selectFrom('session_verdicts').select('session_id').where('job_id', '=', 'once').execute()).toHaveLength(5);
    const sums = await allAcceptedSums(ctx().storage, 'once');
    expect(sums!.sessions).toBe(5);
    expect(sortedSums(sums)).toEqual(sortedSums(await recount('once')));
    // Each stimulus of the playlist is counted once per session (5 sessions over the 2 playlists).
    expect([...sums!.byStimulus.values()].reduce((n, s) => n + s.n, 0)).toBe(5 * SOURCES.length);
  });

  it('gives one session per participant id when the same id arrives many times at once', async () => {
    await ctx().importStudy(await writeStudy(study('one-each')));
    // PostgreSQL: the arrivals queue on the job's balancing lock (its job_loads row, glimpse_open_session), held
    // meanwhile by the test; released once 10 wait on it (the pool's connections: the last 2 queue for one), they
    // contend there together. SQLite: sent together, decided one after the other.
    const { results: answers, waiting } = await contendAt(ctx(), `select 1 from job_loads where job_id = 'one-each' for update`, PG_POOL_CONNECTIONS, () =>
      Array.from({ length: 12 }, (_, i) => getPlaylist(ctx().app, '/api/getacr/one-each', `platform=prolific&PROLIFIC_PID=${i % 3 === 0 ? 'SAME' : `P${i}`}`)),
    );
    expect(waiting).toBe(dialect === 'postgres' ? PG_POOL_CONNECTIONS : null);
    expect(answers.map((a) => a.statusCode)).toEqual(Array(12).fill(200));
    const same = answers.filter((_, i) => i % 3 === 0).map((a) => json<GenericPlaylist>(a).sessionToken);
    expect(new Set(same).size).toBe(1);
    expect(await ctx().storage.db.selectFrom('sessions').select('id').where('job_id', '=', 'one-each').execute()).toHaveLength(9);
    const loads = await loadsAndRecount('one-each');
    expect(loads.stored).toEqual(loads.recounted);
    // Balanced: 9 sessions over 2 playlists.
    expect(loads.stored.map((p) => p.sessions).sort()).toEqual([4, 5]);
  });

  it('counts a job whose balancing counts were never built at its next arrival, and balances from them', async () => {
    await ctx().importStudy(await writeStudy(study('uncounted')));
    const db = ctx().storage.db;
    for (const pid of ['U1', 'U2', 'U3']) expect((await getPlaylist(ctx().app, '/api/getacr/uncounted', `platform=prolific&PROLIFIC_PID=${pid}`)).statusCode).toBe(200);
    // As a job imported before the counts existed: no job row, no playlist rows.
    await db.deleteFrom('playlist_loads').where('job_id', '=', 'uncounted').execute();
    await db.deleteFrom('job_loads').where('job_id', '=', 'uncounted').execute();
    const answers = await Promise.all(['U4', 'U5', 'U6'].map((pid) => getPlaylist(ctx().app, '/api/getacr/uncounted', `platform=prolific&PROLIFIC_PID=${pid}`)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
    const loads = await loadsAndRecount('uncounted');
    expect(loads.stored).toEqual(loads.recounted);
    expect(loads.stored.map((p) => p.sessions)).toEqual([3, 3]);
    expect(await db.selectFrom('job_loads').select('job_id').where('job_id', '=', 'uncounted').execute()).toHaveLength(1);
  });

  it('counts each session once when completions race the lease sweep and a recount (no job lock on completions)', async () => {
    await ctx().importStudy(await writeStudy(study('races')));
    const db = ctx().storage.db;
    const started = await Promise.all(Array.from({ length: 16 }, (_, i) => getPlaylist(ctx().app, '/api/getacr/races', `platform=prolific&PROLIFIC_PID=R${i}`)));
    const ids = started.map((a) => json<GenericPlaylist>(a).session_id!);
    // Twelve of them began three hours ago, after the job's last sweep (four hours ago): past the 60-minute lease, for
    // the next arrival's sweep to take.
    await db.updateTable('sessions').set({ created_at: new Date(Date.now() - 3 * 3600_000).toISOString() }).where('id', 'in', ids.slice(0, 12)).execute();
    await db.updateTable('job_loads').set({ swept_until: new Date(Date.now() - 4 * 3600_000).toISOString() }).where('job_id', '=', 'races').execute();
    // Arrivals sweep the lease while eight expired sessions (and two live ones) complete and the job is recounted.
    // PostgreSQL: the test holds the job's playlist_loads rows, which every one of them writes: the completions
    // (another node's connections, so that all 15 find one) wait there with their sessions' rows updated, the
    // recount and the arrivals wait there, or behind the job's lock or those sessions' rows; released once all 15
    // wait, they contend together. SQLite: sent together, written one after the other.
    const completer = dialect === 'postgres' ? await openStorage({ databaseUrl: ctx().database.url, migrate: false }) : ctx().storage;
    try {
      const { waiting } = await contendAt<unknown>(ctx(), `select 1 from playlist_loads where job_id = 'races' for update`, 15, () => [
        ...Array.from({ length: 4 }, (_, i) => getPlaylist(ctx().app, '/api/getacr/races', `platform=prolific&PROLIFIC_PID=N${i}`)),
        ...[...ids.slice(0, 8), ...ids.slice(12, 14)].map((id) => completeSession(completer, id)),
        ctx().storage.write((trx) => recountLoads(ctx().storage, trx, 'races')),
      ]);
      expect(waiting).toBe(dialect === 'postgres' ? 15 : null);
    } finally {
      if (completer !== ctx().storage) await completer.close();
    }
    const cutoff = new Date(Date.now() - 3600_000).toISOString();
    const stored = await db.selectFrom('playlist_loads').select(['playlist_id', 'sessions', 'included', 'running']).where('job_id', '=', 'races').orderBy('playlist_id').execute();
    const sessions = await db.selectFrom('sessions').select(['playlist_id', 'created_at', 'completed_at']).where('job_id', '=', 'races').execute();
    const recounted = stored.map((p) => {
      const mine = sessions.filter((s) => s.playlist_id === p.playlist_id);
      return { playlist_id: p.playlist_id, sessions: mine.length, included: mine.filter((s) => s.completed_at).length, running: mine.filter((s) => !s.completed_at && s.created_at > cutoff).length };
    });
    expect(stored.map((p) => ({ ...p, sessions: Number(p.sessions), included: Number(p.included), running: Number(p.running) }))).toEqual(recounted);
    // 20 sessions: 10 completed; running are the 2 live ones not completed and the 4 new arrivals.
    expect(recounted.reduce((n, p) => n + p.running, 0)).toBe(6);
    expect(recounted.reduce((n, p) => n + p.included, 0)).toBe(10);
  });

  it('withdraws expired sessions while arrivals sweep them, and the counts stay exact', async () => {
    await ctx().importStudy(await writeStudy(study('withdrawn-races')));
    const db = ctx().storage.db;
    const started = await Promise.all(Array.from({ length: 8 }, (_, i) => getPlaylist(ctx().app, '/api/getacr/withdrawn-races', `platform=prolific&PROLIFIC_PID=W${i}`)));
    const tokens = started.map((a) => json<GenericPlaylist>(a).sessionToken!);
    await db.updateTable('sessions').set({ created_at: new Date(Date.now() - 3 * 3600_000).toISOString() }).where('job_id', '=', 'withdrawn-races').execute();
    await db.updateTable('job_loads').set({ swept_until: new Date(Date.now() - 4 * 3600_000).toISOString() }).where('job_id', '=', 'withdrawn-races').execute();
    // A withdrawal locks the job's counts before the sessions it deletes, in an arrival's sweep's order. PostgreSQL:
    // the test holds the job's job_loads row, which both take first; released once the 4 withdrawals and the 4
    // arrivals wait on it, they contend there together (a withdrawal that deleted its sessions before locking the
    // counts could deadlock here with a sweep). SQLite: sent together, written one after the other.
    const { results: answers, waiting } = await contendAt<unknown>(ctx(), `select 1 from job_loads where job_id = 'withdrawn-races' for update`, 8, () => [
      ...tokens.slice(0, 4).map((token) => withdraw(ctx().storage, { by: 'token', value: token })),
      ...Array.from({ length: 4 }, (_, i) => getPlaylist(ctx().app, '/api/getacr/withdrawn-races', `platform=prolific&PROLIFIC_PID=X${i}`)),
    ]);
    expect(waiting).toBe(dialect === 'postgres' ? 8 : null);
    expect(answers.slice(4).map((a) => (a as { statusCode: number }).statusCode)).toEqual([200, 200, 200, 200]);
    const stored = await db.selectFrom('playlist_loads').select(['sessions', 'running']).where('job_id', '=', 'withdrawn-races').execute();
    // 4 left of the first 8 (past the lease: not running), and the 4 new arrivals, running.
    expect([stored.reduce((n, p) => n + Number(p.sessions), 0), stored.reduce((n, p) => n + Number(p.running), 0)]).toEqual([8, 4]);
  });
});
