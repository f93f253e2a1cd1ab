import { sql } from 'kysely';
import { beforeEach, expect, it } from 'vitest';
import type { BubblePlaylistStimulus, PlaylistResponse } from '../../src/contract/playlist.js';
import { PROTOCOLS } from '../../src/protocols/registry.js';
import { screenJob } from '../../src/server/quality/screening.js';
import { reviseVerdict } from '../../src/server/storage/quality-sums.js';
import { storedVerdict } from '../../src/server/storage/quality.js';
import { nowIso, type Db } from '../../src/server/storage/types.js';
import { withdraw } from '../../src/server/storage/withdrawals.js';
import { cli, useCliEnvironment } from '../../testkit/cli.js';
import { parseCsv } from '../../testkit/csv.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { waitFor } from '../../testkit/node-process.js';
import { BCHECK, takeTest } from '../../testkit/participants.js';
import { getPlaylist, json, participantData, postJson, ratingBody, useServer } from '../../testkit/server.js';
import { PAIR_STUDY, studyOf, writeStudy } from '../../testkit/studies.js';

const PAIR = '/api/getrandomtasks/fixture-pair';

describeEachDialect('CLI withdraw', (dialect) => {
  const ctx = useServer(dialect);
  useCliEnvironment(ctx);
  beforeEach(() => ctx().importStudy(PAIR_STUDY));

  const take = (query: string, opts?: Parameters<typeof takeTest>[3]) => takeTest(ctx().app, PAIR, query, opts);
  const without = <T extends Record<string, unknown>>(rows: T[], key: string, ...values: unknown[]) => rows.filter((r) => !values.includes(r[key]));

  it('deletes a completed session found by its verification code, keeps the others, and still blocks a retake', async () => {
    const a = await take('platform=mturk&workerId=W1&assignmentId=A1&hitId=H1', { complete: true });
    const b = await take('platform=prolific&PROLIFIC_PID=P2', { complete: true });
    const c = await take('platform=mturk&workerId=W3');
    const before = await participantData(ctx().storage);

    // Participants retype codes: lower case and spaces are accepted.
    const res = await cli(['withdraw', '--code', ` ${a.code!.toLowerCase().slice(0, 6)} ${a.code!.toLowerCase().slice(6)}`]);
    expect(res).toMatchObject({ code: 0, err: '' });
    const startedA = before.sessions.find((s) => s.id === a.sessionId)!;
    expect(res.out.split('\n')).toEqual([
      `session ${a.sessionId}, job fixture-pair (mturk), started ${startedA.created_at}, completed ${startedA.completed_at}: 2 ratings, 0 screenings, 1 session log, platform identity`,
      'deleted in one transaction: 1 session, 2 ratings, 0 screenings, 1 session log, 1 identity row, 1 browser check, 0 consent forms',
      expect.stringContaining('kept 1 withdrawal record for the completed session(s)'),
      '',
    ]);
    expect(res.out).toContain('the participant still gets ALREADY_COMPLETED on fixture-pair');

    // Nothing of session a is left; every other row is exactly as it was.
    const after = await participantData(ctx().storage);
    expect(after.sessions).toEqual(without(before.sessions, 'id', a.sessionId));
    expect(after.session_identities).toEqual(without(before.session_identities, 'session_id', a.sessionId));
    expect(after.ratings).toEqual(without(before.ratings, 'session_id', a.sessionId));
    expect(after.session_logs).toEqual(without(before.session_logs, 'session_id', a.sessionId));
    expect(after.bchecks).toEqual(without(before.bchecks, 'id', a.bcheckId));
    expect(after.ratings.map((r) => r.session_id)).toEqual([b.sessionId, b.sessionId, c.sessionId]);
    // The tombstone holds no platform id, code or answer in clear.
    expect(after.withdrawals).toEqual([
      {
        id: expect.any(Number),
        job_id: 'fixture-pair',
        participant_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        code_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        session_started_at: startedA.created_at,
        withdrawn_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      },
    ]);
    expect(JSON.stringify(after.withdrawals)).not.toMatch(new RegExp(`W1|${a.code}`, 'i'));

    const exported = parseCsv((await cli(['export', 'fixture-pair'])).out);
    expect(exported.map((r) => Number(r.session_id))).toEqual([b.sessionId, b.sessionId, c.sessionId]);

    // What the participant would notice: their old page can no longer do anything, and the job stays closed to them.
    expect((await ctx().app.inject(`/api/sessions/token/${a.token}`)).statusCode).toBe(404);
    expect((await postJson(ctx().app, '/api/ratings/', ratingBody(a.playlist, a.playlist.stimulis[0].stimuliId))).statusCode).toBe(404);
    const retake = await getPlaylist(ctx().app, PAIR, 'platform=mturk&workerId=W1&assignmentId=A9&hitId=H1');
    expect(retake.statusCode).toBe(403);
    expect(json(retake).flag).toBe('ALREADY_COMPLETED');
    expect((await participantData(ctx().storage)).ratings).toEqual(after.ratings);

    // A second request with the same code is answered, not refused.
    const again = await cli(['withdraw', '--code', a.code!]);
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/^already withdrawn from job fixture-pair on \d{4}-\d{2}-\d{2}T.*\nnothing left to delete\n$/);
  });

  it('--dry-run prints the same plan and deletes nothing', async () => {
    const a = await take('platform=mturk&workerId=W1', { complete: true });
    await take('platform=mturk&workerId=W2');
    const before = await participantData(ctx().storage);
    const res = await cli(['withdraw', '--worker-id', 'W1', '--dry-run']);
    expect(res.code).toBe(0);
    expect(res.out).toContain(`session ${a.sessionId}, job fixture-pair (mturk)`);
    expect(res.out).toContain('dry run, nothing deleted; would delete 1 session, 2 ratings, 0 screenings, 1 session log, 1 identity row, 0 consent forms');
    expect(res.out).toContain('would keep 1 withdrawal record');
    expect(await participantData(ctx().storage)).toEqual(before);
  });

  it('fails with exit code 1 and deletes nothing on an unknown code, an unknown job or bad options', async () => {
    await take('platform=mturk&workerId=W1', { complete: true });
    const before = await participantData(ctx().storage);
    expect(await cli(['withdraw', '--code', 'NOPE2345NOPE'])).toEqual({ code: 1, out: '', err: 'no session matches --code NOPE2345NOPE; nothing deleted\n' });
    expect(await cli(['withdraw', '--email', 'nobody@example.org'])).toMatchObject({ code: 1, err: 'no session or consent form matches --email nobody@example.org; nothing deleted\n' });
    expect(await cli(['withdraw', '--worker-id', 'W1', '--job', 'nope'])).toMatchObject({ code: 1, err: 'no job nope\n' });
    expect((await cli(['withdraw', '--worker-id', 'W1', '--code', 'X'])).err).toContain('withdraw needs exactly one of --code, --token, --worker-id, --prolific-pid, --email');
    expect((await cli(['withdraw'])).code).toBe(1);
    expect((await cli(['withdraw', '--worker-id', ' '])).err).toBe('--worker-id is empty\n');
    const unknown = await cli(['withdraw', '--worker', 'W1']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("Unknown option '--worker'");
    expect(unknown.err).toContain('withdraw (--code CODE | --token TOKEN');
    expect(await participantData(ctx().storage)).toEqual(before);
  });

  it('--email finds lab sessions and consent forms whatever the case; an unfinished session leaves no record', async () => {
    const form = { paraphe: 'CD', gender: 'Mme.', name: 'Chloé', familyName: 'Dupré', birthCountry: 'France', birthDay: '1994-07-21', currentDate: { day: 5, month: 3, year: 2026 } };
    expect((await postJson(ctx().app, '/api/consent/', { ...form, emailAddress: 'Chloe.Dupre@univ-nantes.fr' })).statusCode).toBe(201);
    expect((await postJson(ctx().app, '/api/consent/', { ...form, emailAddress: 'someone.else@univ-nantes.fr' })).statusCode).toBe(201);
    const mine = await take('platform=nantes&email=Chloe.Dupre%40univ-nantes.fr');
    const other = await take('platform=nantes&email=someone.else%40univ-nantes.fr', { complete: true });

    // With --job, consent forms (not linked to a job) are kept, and said so.
    const scoped = await cli(['withdraw', '--email', 'chloe.dupre@univ-nantes.fr', '--job', 'fixture-pair', '--dry-run']);
    expect(scoped.out).toContain('consent forms are not linked to a job: run without --job to delete them too');
    expect(scoped.out).toContain('0 consent forms');

    const res = await cli(['withdraw', '--email', 'chloe.dupre@UNIV-NANTES.fr']);
    expect(res.code).toBe(0);
    expect(res.out).toContain(`session ${mine.sessionId}, job fixture-pair (nantes), started `);
    expect(res.out).toContain('not completed: 1 rating, 0 screenings, 1 session log, platform identity');
    expect(res.out).toContain('1 consent form with this email');
    expect(res.out).toContain('deleted in one transaction: 1 session, 1 rating, 0 screenings, 1 session log, 1 identity row, 1 browser check, 1 consent form');
    expect(res.out).not.toContain('withdrawal record');

    const after = await participantData(ctx().storage);
    expect(after.consents.map((c) => c.email)).toEqual(['someone.else@univ-nantes.fr']);
    expect(after.sessions.map((s) => s.id)).toEqual([other.sessionId]);
    expect(after.withdrawals).toEqual([]);
    // An unfinished session never blocked a retake; withdrawing it does not either.
    expect((await getPlaylist(ctx().app, PAIR, 'platform=nantes&email=Chloe.Dupre%40univ-nantes.fr')).statusCode).toBe(200);
  });

  it('--job limits the withdrawal to one job; --token finds a bubble session and its mouse logs', async () => {
    await ctx().importStudy(await writeStudy(studyOf('bubble', { id: 'bub', playlists: 1, perPlaylist: 1 })));
    const pair = await take('platform=mturk&workerId=W1', { complete: true });
    // The same browser check serves both of W1's sessions.
    const res = await getPlaylist(ctx().app, '/api/getbubble/bub', `platform=mturk&workerId=W1&ft=1&bcheckId=${pair.bcheckId}`);
    const bubble = json<PlaylistResponse<BubblePlaylistStimulus>>(res);
    const mouse = { mediaA: [{ x: 1, y: 2, t: 3, vt: 0 }], mediaB: [] };
    for (const screening_no of [1, 2]) {
      const post = await postJson(ctx().app, '/api/bubblescreenings/', { stimuli_id: bubble.stimulis[0].stimuli_id, session_id: bubble.session_id, session_token: bubble.sessionToken, mouse_logs: mouse, screening_no, logs: null });
      expect(post.statusCode).toBe(201);
    }

    const scoped = await cli(['withdraw', '--token', bubble.sessionToken!, '--job', 'bub']);
    expect(scoped.out).toContain(`session ${bubble.session_id}, job bub (mturk)`);
    expect(scoped.out).toContain('deleted in one transaction: 1 session, 0 ratings, 2 screenings, 0 session logs, 1 identity row, 0 browser checks, 0 consent forms');
    const after = await participantData(ctx().storage);
    expect(after.screenings).toEqual([]);
    expect(after.sessions.map((s) => s.id)).toEqual([pair.sessionId]);
    expect(after.bchecks.map((b) => b.id)).toEqual([pair.bcheckId]);
    expect(after.bchecks[0]).toMatchObject(BCHECK);

    expect((await cli(['withdraw', '--worker-id', 'W1', '--job', 'bub'])).err).toBe('no session matches --worker-id W1 in job bub; nothing deleted\n');
    const rest = await cli(['withdraw', '--worker-id', 'W1']);
    expect(rest.out).toContain('deleted in one transaction: 1 session, 2 ratings, 0 screenings, 1 session log, 1 identity row, 1 browser check');
    expect(await participantData(ctx().storage)).toMatchObject({ sessions: [], ratings: [], bchecks: [], session_identities: [], session_logs: [] });
  });

  it('undoes every deletion when one of them fails (one transaction)', async () => {
    const a = await take('platform=prolific&PROLIFIC_PID=P1', { complete: true });
    // Make the last step (the session row) fail, after the answers, logs and identity were deleted.
    if (dialect === 'sqlite') {
      await sql`create trigger refuse_session_delete before delete on sessions begin select raise(abort, 'refused by test trigger'); end`.execute(ctx().storage.db);
    } else {
      await sql`create function refuse_delete() returns trigger language plpgsql as $$ begin raise exception 'refused by test trigger'; end $$`.execute(ctx().storage.db);
      await sql`create trigger refuse_session_delete before delete on sessions for each row execute function refuse_delete()`.execute(ctx().storage.db);
    }
    const before = await participantData(ctx().storage);
    await expect(cli(['withdraw', '--prolific-pid', 'P1'])).rejects.toThrow(/refused by test trigger/);
    expect(await participantData(ctx().storage)).toEqual(before);
    expect(before.ratings.filter((r) => r.session_id === a.sessionId)).toHaveLength(2);
  });
});

/**
 * A withdrawal while quality control writes (issue 34): both complete, in the one lock order of storage/playlist-loads.ts,
 * and a withdrawn session keeps no verdict. On PostgreSQL a withdrawal is held half-way (after its deletes, before its
 * commit) by an advisory lock the test holds, taken by a trigger: the other transaction then really runs meanwhile.
 */
describeEachDialect('withdrawal during quality control', (dialect) => {
  const ctx = useServer(dialect);
  beforeEach(() => ctx().importStudy(PAIR_STUDY));
  const take = (query: string) => takeTest(ctx().app, PAIR, query, { complete: true });
  const verdicts = () => ctx().storage.db.selectFrom('session_verdicts').select(['session_id', 'included', 'evaluated_at']).orderBy('session_id').execute();
  const loads = async () => {
    const rows = await ctx().storage.db.selectFrom('playlist_loads').select(['sessions', 'included']).execute();
    return { sessions: rows.reduce((n, r) => n + Number(r.sessions), 0), included: rows.reduce((n, r) => n + Number(r.included), 0) };
  };

  it('a re-judge skips a session withdrawn between reading it and writing the verdicts', async () => {
    const [a, b, c] = [await take('platform=prolific&PROLIFIC_PID=P1'), await take('platform=prolific&PROLIFIC_PID=P2'), await take('platform=prolific&PROLIFIC_PID=P3')];
    const started = nowIso();
    let withdrawn = 0;
    const screened = await screenJob(ctx().storage, 'fixture-pair', PROTOCOLS, {
      afterJudging: async () => {
        withdrawn = (await withdraw(ctx().storage, { by: 'code', value: b.code! })).deleted.sessions;
      },
    });
    expect(withdrawn).toBe(1);
    expect(screened.map((s) => s.sessionId)).toEqual([a.sessionId, c.sessionId]);
    const stored = await verdicts();
    expect(stored.map((v) => v.session_id)).toEqual([a.sessionId, c.sessionId]);
    expect(stored.every((v) => v.evaluated_at >= started)).toBe(true);
    // The playlists' counts were recounted without the withdrawn session.
    expect(await loads()).toEqual({ sessions: 2, included: stored.filter((v) => v.included === 1).length });
  });

  if (dialect !== 'postgres') return;

  /** Holds an advisory lock on its own connection until `release()`; a trigger taking it shared then waits. */
  async function holdAdvisoryLock(key: number) {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held!: () => void;
    const ready = new Promise<void>((resolve) => (held = resolve));
    const done = ctx().storage.db.connection().execute(async (conn) => {
      await sql`select pg_advisory_lock(${key}::bigint)`.execute(conn);
      held();
      await released;
      await sql`select pg_advisory_unlock(${key}::bigint)`.execute(conn);
    });
    await ready;
    return { release, done };
  }
  /** A trigger that waits for the advisory lock after each statement of `event` on `table`. */
  const stallAfter = async (db: Db, key: number, table: string, event: 'delete' | 'update') => {
    await sql`create or replace function stall() returns trigger language plpgsql as ${sql.lit(`begin perform pg_advisory_xact_lock_shared(${key}::bigint); return null; end`)}`.execute(db);
    await sql`create trigger ${sql.raw(`stall_${table}`)} after ${sql.raw(event)} on ${sql.table(table)} for each statement execute function stall()`.execute(db);
  };
  /** The backend waiting for the advisory lock (the stalled transaction). */
  const waiterOn = async (key: number) => {
    let pid = 0;
    await waitFor(async () => {
      const { rows } = await sql<{ pid: number }>`select pid from pg_locks where locktype = 'advisory' and objid = ${key} and not granted`.execute(ctx().storage.db);
      pid = rows[0]?.pid ?? 0;
      return pid !== 0;
    });
    return pid;
  };
  /** Resolves once some backend waits for a lock that `pid` holds. */
  const someoneWaitsFor = (pid: number) =>
    waitFor(async () => {
      const { rows } = await sql`select 1 from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid))`.execute(ctx().storage.db);
      return rows.length > 0;
    });
  const randomKey = () => 1_000_000 + Math.floor(Math.random() * 1_000_000_000);

  it('a re-judge waits for a withdrawal still running, then skips its session', async () => {
    const [a, b, c] = [await take('platform=prolific&PROLIFIC_PID=P1'), await take('platform=prolific&PROLIFIC_PID=P2'), await take('platform=prolific&PROLIFIC_PID=P3')];
    const key = randomKey();
    await stallAfter(ctx().storage.db, key, 'sessions', 'delete');
    const lock = await holdAdvisoryLock(key);
    let withdrawal, rejudge;
    try {
      withdrawal = withdraw(ctx().storage, { by: 'code', value: b.code! });
      const withdrawer = await waiterOn(key);
      // The re-judge reads every session (the withdrawal is not committed) and then writes while it is still open.
      rejudge = screenJob(ctx().storage, 'fixture-pair');
      await someoneWaitsFor(withdrawer);
    } finally {
      lock.release();
    }
    const [withdrawn, screened] = await Promise.all([withdrawal, rejudge, lock.done]);
    expect(withdrawn.deleted.sessions).toBe(1);
    expect(screened.map((s) => s.sessionId)).toEqual([a.sessionId, c.sessionId]);
    expect((await verdicts()).map((v) => v.session_id)).toEqual([a.sessionId, c.sessionId]);
  });

  it('a verdict revised while a withdrawal recounts the same job: both complete (no deadlock)', async () => {
    const [a, b] = [await take('platform=prolific&PROLIFIC_PID=P1'), await take('platform=prolific&PROLIFIC_PID=P2')];
    const session = await ctx().storage.db.selectFrom('sessions').selectAll().where('id', '=', a.sessionId).executeTakeFirstOrThrow();
    const before = (await storedVerdict(ctx().storage, a.sessionId))!;
    const key = randomKey();
    // The revision stops once it has changed the job's sums: the withdrawal then takes its own locks up to those sums.
    await stallAfter(ctx().storage.db, key, 'accepted_sessions', 'update');
    const lock = await holdAdvisoryLock(key);
    let revision, withdrawal;
    try {
      revision = reviseVerdict(ctx().storage, session, (old) => ({ ...old, included: !old.included }), new Map());
      const reviser = await waiterOn(key);
      withdrawal = withdraw(ctx().storage, { by: 'code', value: b.code! });
      await someoneWaitsFor(reviser);
    } finally {
      lock.release();
    }
    const [revised, withdrawn] = await Promise.all([revision, withdrawal, lock.done]);
    expect(revised?.included).toBe(!before.included);
    expect(withdrawn.deleted.sessions).toBe(1);
    expect((await verdicts()).map((v) => v.session_id)).toEqual([a.sessionId]);
    expect(await loads()).toEqual({ sessions: 1, included: before.included ? 0 : 1 });
  });
});
