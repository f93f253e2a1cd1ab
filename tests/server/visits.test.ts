import { expect, it } from 'vitest';
import { RESUME_TOKEN_HEADER } from '../../src/contract/playlist.js';
import { jobStats } from '../../src/server/console/stats.js';
import { findJob } from '../../src/server/storage/jobs.js';
import { rebuildLoads } from '../../src/server/storage/playlist-loads.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { json, postJson, ratingBody, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { PAIR_STUDY } from '../../testkit/studies.js';

/**
 * Visits (issue 35, item 2) on both databases: a link opened is a visit, logged by POST /api/visits/{id} while the
 * visitor reads the eligibility checks; it holds no playlist slot and no lease, and the console counts it apart as
 * "visited". The session starts with the playlist call made once the checks are passed.
 */

const JOB = 'fixture-pair';
const PLAYLIST = `/api/getrandomtasks/${JOB}`;
const LEASE_MINUTES = 60;

describeEachDialect('visits', (dialect) => {
  const ctx = useServer(dialect);
  const visit = async (query: string, headers: Record<string, string> = {}) => {
    const res = await ctx().app.inject({ method: 'POST', url: `/api/visits/${JOB}?${query}`, headers });
    return { status: res.statusCode, body: json(res) };
  };
  const playlist = async (query: string, headers: Record<string, string> = {}) => {
    const res = await ctx().app.inject({ method: 'GET', url: `${PLAYLIST}?${query}`, headers });
    return { status: res.statusCode, body: json(res) };
  };
  const stats = async () => jobStats(ctx().storage, (await findJob(ctx().storage, JOB))!, LEASE_MINUTES);
  const loads = () => ctx().storage.db.selectFrom('playlist_loads').select(['playlist_id', 'sessions', 'running', 'included']).where('job_id', '=', JOB).orderBy('playlist_id').execute();
  const countRows = async (table: 'sessions' | 'session_participants' | 'visits') => Number((await ctx().storage.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const complete = async (p: GenericPlaylist) => {
    for (const s of p.stimulis) expect((await postJson(ctx().app, '/api/ratings/', ratingBody(p, s.stimuliId))).statusCode).toBe(201);
    expect((await ctx().app.inject(`/api/sessions/token/${p.sessionToken}`)).statusCode).toBe(200);
  };

  it('a visitor who never passes eligibility holds no slot and is not counted as started, only as visited', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const before = await loads();
    const first = await visit('platform=prolific&PROLIFIC_PID=onlylooking&STUDY_ID=S&SESSION_ID=X');
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ visit: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/), resumable: false });
    // An anonymous visitor and a lab visitor too.
    expect((await visit('platform=prolific')).status).toBe(201);
    expect((await visit('platform=nantes&email=visitor%40lab.example')).status).toBe(201);

    expect(await countRows('sessions')).toBe(0);
    expect(await countRows('session_participants')).toBe(0);
    expect(await loads()).toEqual(before);
    expect(before.every((l) => l.sessions === 0 && l.running === 0)).toBe(true);
    const s = await stats();
    expect(s.visited).toBe(3);
    expect(s.sessions).toMatchObject({ started: 0, running: 0, completed: 0 });
    expect(s.playlists.map((p) => [p.started, p.running])).toEqual(before.map(() => [0, 0]));
    expect(s.dropOut).toEqual([]);
    // The visit stores no platform id: only the job, the platform and when.
    const rows = await ctx().storage.db.selectFrom('visits').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.job_id, r.platform, r.started_at])).toEqual([
      [JOB, 'prolific', null],
      [JOB, 'prolific', null],
      [JOB, 'nantes', null],
    ]);
    expect(JSON.stringify(rows)).not.toContain('onlylooking');
  });

  it('a visitor who passes eligibility gets their session, and their visit counts as started, once', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const { body } = await visit('platform=prolific&PROLIFIC_PID=passes');
    const started = await playlist(`platform=prolific&PROLIFIC_PID=passes&visit=${body.visit}`);
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ session_id: expect.any(Number), sessionToken: expect.any(String), resumed: false });
    const row = await ctx().storage.db.selectFrom('visits').select(['token', 'started_at']).executeTakeFirstOrThrow();
    expect(row.token).toBe(body.visit);
    expect(row.started_at).not.toBeNull();
    expect(await stats()).toMatchObject({ visited: 0, sessions: { started: 1, running: 1 } });

    // The page reloaded: the visit says there is a session to resume, logs nothing, and the playlist call gives it
    // back (the same visit sent again changes nothing).
    const again = await visit('platform=prolific&PROLIFIC_PID=passes');
    expect([again.status, again.body]).toEqual([200, { visit: null, resumable: true }]);
    const resumed = await playlist(`platform=prolific&PROLIFIC_PID=passes&visit=${body.visit}`);
    expect(resumed.body).toMatchObject({ session_id: started.body.session_id, resumed: true });
    expect(await countRows('visits')).toBe(1);
    expect(await countRows('sessions')).toBe(1);
    // A visit token that is not one, or another job's, is refused or changes nothing.
    expect((await playlist('platform=prolific&PROLIFIC_PID=other&visit=not-a-token')).status).toBe(400);
    expect(await stats()).toMatchObject({ visited: 0, sessions: { started: 1 } });
  });

  it('leaves balancing and the target to sessions: visitors fill no playlist and never make a study full', async () => {
    await ctx().importStudy(PAIR_STUDY);
    await ctx().storage.db.updateTable('jobs').set({ quality: JSON.stringify({ targetAcceptedPerPlaylist: 1 }) }).where('id', '=', JOB).execute();
    const playlists = await ctx().storage.db.selectFrom('playlists').select('id').where('job_id', '=', JOB).orderBy('id').execute();
    expect(playlists).toHaveLength(2);
    const visits: string[] = [];
    for (let i = 0; i < 12; i++) visits.push((await visit(`platform=prolific&PROLIFIC_PID=crowd${i}`)).body.visit);
    // Two of them pass eligibility: one per playlist, as if nobody else had visited.
    const a = await playlist(`platform=prolific&PROLIFIC_PID=crowd0&visit=${visits[0]}`);
    const b = await playlist(`platform=prolific&PROLIFIC_PID=crowd1&visit=${visits[1]}`);
    expect([a.body.playlistId, b.body.playlistId]).toEqual(playlists.map((p) => p.id));
    // Each playlist has its one observer running: the next one to pass is told the study is full, not before.
    const c = await playlist(`platform=prolific&PROLIFIC_PID=crowd2&visit=${visits[2]}`);
    expect([c.status, c.body.error]).toEqual([403, 'STUDY_FULL']);
    // The kept counts are what a recount from the sessions gives.
    const kept = await loads();
    await ctx().storage.write((trx) => rebuildLoads(ctx().storage, trx, JOB));
    expect(await loads()).toEqual(kept);
    expect(kept.map((l) => [l.sessions, l.running])).toEqual([
      [1, 1],
      [1, 1],
    ]);
    // The one refused never started: still a visit.
    expect(await stats()).toMatchObject({ visited: 10, sessions: { started: 2, running: 2 } });
  });

  it('tells a repeat participant and a study not open at the visit, gives a session in progress back, and logs none of them', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const done = (await playlist('platform=mturk&workerId=W1&assignmentId=A1')).body as GenericPlaylist;
    await complete(done);
    expect((await playlist('platform=prolific&PROLIFIC_PID=halfway')).status).toBe(200);
    const anonymous = (await playlist('platform=prolific')).body as GenericPlaylist;

    const repeat = await visit('platform=mturk&workerId=w1&assignmentId=A2');
    expect([repeat.status, repeat.body]).toEqual([403, { flag: 'ALREADY_COMPLETED', error: 'ALREADY_COMPLETED', message: 'this participant has already completed this job' }]);
    expect((await visit('platform=prolific&PROLIFIC_PID=halfway')).body).toEqual({ visit: null, resumable: true });
    expect((await visit('platform=prolific', { [RESUME_TOKEN_HEADER]: anonymous.sessionToken! })).body).toEqual({ visit: null, resumable: true });
    // An MTurk worker previewing the HIT is nobody's visit.
    expect(await visit('platform=mturk&assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=H')).toEqual({ status: 200, body: { visit: null, resumable: false } });
    const bad = await visit('platform=prolific&PROLIFIC_PID=a%20b');
    expect([bad.status, bad.body.error]).toEqual([400, 'BAD_PLATFORM_ID']);
    expect((await ctx().app.inject({ method: 'POST', url: '/api/visits/no-such-job?platform=prolific' })).statusCode).toBe(404);

    // Paused: a new visitor is told so; the participant halfway still gets their session back.
    await ctx().storage.db.updateTable('jobs').set({ status: 'paused' }).where('id', '=', JOB).execute();
    const paused = await visit('platform=prolific&PROLIFIC_PID=newcomer');
    expect([paused.status, paused.body.error, paused.body.message]).toEqual([403, 'STUDY_PAUSED', 'this study is paused: it takes no new participant for now']);
    expect((await visit('platform=prolific&PROLIFIC_PID=halfway')).body).toEqual({ visit: null, resumable: true });
    await ctx().storage.db.updateTable('jobs').set({ status: 'closed' }).where('id', '=', JOB).execute();
    expect((await visit('platform=prolific&PROLIFIC_PID=newcomer')).body.error).toBe('STUDY_CLOSED');
    await ctx().storage.db.updateTable('jobs').set({ status: 'draft' }).where('id', '=', JOB).execute();
    const draft = await visit('platform=prolific&PROLIFIC_PID=newcomer');
    expect([draft.status, draft.body.error, draft.body.message]).toEqual([403, 'STUDY_NOT_OPEN_YET', 'this study is not open yet: its researchers try it with a preview link from the console']);

    expect(await countRows('visits')).toBe(0);
    expect(await countRows('sessions')).toBe(3);
  });
});
