import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CHECKS_PER_SECOND_PER_THREAD, PasswordPool } from '../../src/server/console/password-pool.js';
import { passwordPool } from '../../src/server/console/passwords.js';
import { createUser } from '../../src/server/storage/users.js';
import { cli, useCliEnvironment } from '../../testkit/cli.js';
import { addUser, PASSWORD, signIn } from '../../testkit/console.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { contendAt, PG_POOL_CONNECTIONS } from '../../testkit/interleave.js';
import { sessionLogsOf } from '../../testkit/participants.js';
import { getPlaylist, json, postJson, ratingBody, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { PAIR_STUDY } from '../../testkit/studies.js';

/**
 * Issue 25 (participants first) and issue 21 item 5, on both databases: sign-in attempts counted before their
 * check, the lock per e-mail and address, revocation (CLI, live streams), exactly one first administrator, and
 * quotas counted in the writing transaction.
 */

const signInFrom = (ctx: ReturnType<ReturnType<typeof useServer>>, email: string, password: string, address = '127.0.0.1') =>
  ctx.app.inject({ method: 'POST', url: '/console/api/sign-in', remoteAddress: address, payload: { email, password } });

describe('password pool', () => {
  it('runs at most its budget of checks at once and refuses past its queue with 503 SIGN_IN_BUSY', async () => {
    const pool = new PasswordPool(1, 2);
    const cost = { N: 2 ** 14, r: 8, p: 1 };
    const salt = new Uint8Array(16);
    // One running, two waiting: the fourth is refused at once.
    const accepted = [0, 1, 2].map((i) => pool.derive(`password ${i}`, salt, 32, cost));
    await expect(pool.derive('one too many', salt, 32, cost)).rejects.toMatchObject({ statusCode: 503, code: 'SIGN_IN_BUSY' });
    const keys = await Promise.all(accepted);
    expect(new Set(keys.map((k) => k.toString('hex'))).size).toBe(3);
    expect(pool.derived).toBe(3);
    await pool.close();
  });

  it('refuses a check that waited longer than its limit for a thread', async () => {
    const pool = new PasswordPool(1, 8, 20);
    const cost = { N: 2 ** 16, r: 8, p: 1 };
    const salt = new Uint8Array(16);
    // The first check takes ~200 ms (64 MiB): the second waits past 20 ms and is refused when the thread frees up.
    const [first, second] = [pool.derive('first', salt, 32, cost), pool.derive('second', salt, 32, cost)];
    await expect(first).resolves.toHaveLength(32);
    await expect(second).rejects.toMatchObject({ statusCode: 503, code: 'SIGN_IN_BUSY' });
    expect(pool.derived).toBe(1);
    await pool.close();
  });
});

describe('password pool workers (issue 34, item 4)', () => {
  const cost = { N: 2 ** 14, r: 8, p: 1 };
  const salt = new Uint8Array(16);

  it('replaces a worker killed mid-check and runs its check again on the new one', async () => {
    const pool = new PasswordPool(1, 8);
    const check = pool.derive('killed under it', salt, 32, cost);
    const [worker] = pool.workers;
    await worker!.terminate();
    await expect(check).resolves.toHaveLength(32);
    expect(pool.derived).toBe(1);
    await pool.close();
  });

  it('never hands a check to a worker that died while idle', async () => {
    const pool = new PasswordPool(1, 8);
    const first = pool.derive('first', salt, 32, cost);
    const [worker] = pool.workers;
    await first;
    await worker!.terminate();
    // Before: the dead worker stayed in the idle list and this check never settled.
    await expect(Promise.race([pool.derive('second', salt, 32, cost), new Promise((_, reject) => setTimeout(() => reject(new Error('never settled')), 5000))])).resolves.toHaveLength(32);
    await pool.close();
  });

  it('refuses unknown browsers past its rate of checks, and queues a known browser\'s check before theirs', async () => {
    const pool = new PasswordPool(1, 1000);
    const order: string[] = [];
    const unknown = Array.from({ length: 30 }, (_, i) => pool.derive(`unknown ${i}`, salt, 32, cost).then(() => order.push('unknown'), (e: { code: string }) => e.code));
    const known = pool.derive('known', salt, 32, cost, true).then(() => order.push('known'));
    const refused = (await Promise.all(unknown)).filter((outcome) => outcome === 'SIGN_IN_BUSY');
    await known;
    expect(refused).toHaveLength(30 - CHECKS_PER_SECOND_PER_THREAD);
    // The known browser's first, or second when the first unknown one had already reached the thread.
    expect(order.indexOf('known')).toBeLessThanOrEqual(1);
    await pool.close();
  });

  it('runs its checks at a lower priority than the event loop (Linux)', async () => {
    const pool = new PasswordPool(1, 8);
    const check = pool.derive('niced', salt, 32, cost);
    const [worker] = pool.workers;
    const threadId = await new Promise<number>((resolve) => {
      // The worker's OS thread: the one of this process whose niceness is 10 once it has started.
      const poll = () => {
        const niced = readdirSync('/proc/self/task').filter((tid) => readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16] === '10');
        if (niced.length > 0) resolve(Number(niced[0]));
        else setTimeout(poll, 5);
      };
      poll();
    });
    expect(threadId).toBeGreaterThan(0);
    expect(worker).toBeDefined();
    await check;
    await pool.close();
  });
});

describeEachDialect('participants first', (dialect) => {
  const ctx = useServer(dialect);
  useCliEnvironment(ctx);

  describe('sign-in', () => {
    it('checks at most 5 passwords of 20 attempts sent at once; the right one, last, gets the lock\'s answer', async () => {
      await addUser(ctx().storage, 'lead@lab.example');
      const before = passwordPool.derived;
      // PostgreSQL: the test holds the attempts' table (SHARE ROW EXCLUSIVE, which their counting upserts wait for);
      // released once 10 wait on it (the pool's connections: the other 10 queue for one), they count together.
      // SQLite: sent together, counted one after the other.
      const { results: answers, waiting } = await contendAt(ctx(), 'lock table sign_in_attempts in share row exclusive mode', PG_POOL_CONNECTIONS, () =>
        [...Array.from({ length: 19 }, (_, i) => `wrong password ${i}`), PASSWORD].map((p) => signInFrom(ctx(), 'lead@lab.example', p)),
      );
      expect(waiting).toBe(dialect === 'postgres' ? PG_POOL_CONNECTIONS : null);
      expect(passwordPool.derived - before).toBeLessThanOrEqual(5);
      expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(401));
      expect(new Set(answers.map((a) => a.body)).size).toBe(1);
      expect(json(answers[19]!).error).toBe('SIGN_IN_FAILED');
    });

    it('counts concurrent wrong passwords atomically: exactly 5 lock the address out (issue 21)', async () => {
      await addUser(ctx().storage, 'lead@lab.example');
      const before = passwordPool.derived;
      // PostgreSQL: all 5 counting upserts wait on the attempts' table, held by the test, then count together.
      const { waiting } = await contendAt(ctx(), 'lock table sign_in_attempts in share row exclusive mode', 5, () =>
        Array.from({ length: 5 }, (_, i) => signInFrom(ctx(), 'lead@lab.example', `wrong ${i}`)),
      );
      expect(waiting).toBe(dialect === 'postgres' ? 5 : null);
      expect(passwordPool.derived - before).toBe(5);
      expect((await signInFrom(ctx(), 'lead@lab.example', PASSWORD)).statusCode).toBe(401);
      expect(passwordPool.derived - before).toBe(5);
      // 4 wrong then the right one from another address: not locked (the lock is per e-mail and address).
      for (let i = 0; i < 4; i++) expect((await signInFrom(ctx(), 'lead@lab.example', 'wrong', '198.51.100.7')).statusCode).toBe(401);
      expect((await signInFrom(ctx(), 'lead@lab.example', PASSWORD, '198.51.100.7')).statusCode).toBe(200);
    });

    it('answers a locked account, an unknown e-mail and a wrong password alike', async () => {
      await addUser(ctx().storage, 'lead@lab.example');
      for (let i = 0; i < 5; i++) await signInFrom(ctx(), 'lead@lab.example', 'wrong password');
      const locked = await signInFrom(ctx(), 'lead@lab.example', PASSWORD);
      const unknown = await signInFrom(ctx(), 'nobody@lab.example', PASSWORD);
      const wrong = await signInFrom(ctx(), 'lead@lab.example', 'wrong password', '192.0.2.1');
      expect([locked, unknown, wrong].map((a) => [a.statusCode, a.body])).toEqual(Array(3).fill([401, wrong.body]));
      // An unknown e-mail locks just like a real one: 5 attempts, then refused unchecked.
      const before = passwordPool.derived;
      for (let i = 0; i < 6; i++) await signInFrom(ctx(), 'nobody@lab.example', 'x', '192.0.2.2');
      expect(passwordPool.derived - before).toBe(5);
    });

    it('keeps no e-mail or address in clear in the attempts it counts', async () => {
      await signInFrom(ctx(), 'someone@lab.example', 'wrong password', '192.0.2.44');
      const rows = await ctx().storage.db.selectFrom('sign_in_attempts').selectAll().execute();
      expect(rows).toHaveLength(2);
      expect(JSON.stringify(rows)).not.toMatch(/someone|192\.0\.2/);
    });
  });

  describe('revocation', () => {
    it('`cli user revoke`, `user sign-out`, `user remove` and `user list`; administrators see the accounts', async () => {
      await ctx().importStudy(PAIR_STUDY);
      await addUser(ctx().storage, 'lead@lab.example');
      await addUser(ctx().storage, 'viewer@lab.example', { jobId: 'fixture-pair', role: 'viewer' });
      const lead = await signIn(ctx().app, 'lead@lab.example');
      const viewer = await signIn(ctx().app, 'viewer@lab.example');
      expect((await cli(['user', 'list'])).out).toBe('lead@lab.example\tadministrator\t1 signed-in session(s)\nviewer@lab.example\tviewer of fixture-pair\t1 signed-in session(s)\n');
      expect(json(await lead.get('/console/api/users')).users).toEqual([
        { email: 'lead@lab.example', admin: true, createdAt: expect.any(String), sessions: 1, roles: [] },
        { email: 'viewer@lab.example', admin: false, createdAt: expect.any(String), sessions: 1, roles: [{ jobId: 'fixture-pair', role: 'viewer' }] },
      ]);
      expect((await viewer.get('/console/api/users')).statusCode).toBe(403);

      expect((await cli(['user', 'revoke', 'viewer@lab.example', 'fixture-pair'])).out).toBe('viewer@lab.example has no role on fixture-pair any more\n');
      expect((await viewer.get('/console/api/jobs/fixture-pair')).statusCode).toBe(404);
      expect((await cli(['user', 'revoke', 'viewer@lab.example', 'fixture-pair'])).err).toBe('viewer@lab.example has no role on fixture-pair\n');

      expect((await cli(['user', 'sign-out', 'viewer@lab.example'])).out).toBe('viewer@lab.example: 1 session(s) ended\n');
      expect(json(await viewer.get('/console/api/me')).error).toBe('SIGN_IN_REQUIRED');

      expect((await cli(['user', 'remove', 'lead@lab.example'])).err).toBe('lead@lab.example is the only administrator: it cannot be removed\n');
      expect((await cli(['user', 'remove', 'viewer@lab.example'])).out).toBe('account viewer@lab.example removed, with its roles and sessions\n');
      expect((await cli(['user', 'remove', 'viewer@lab.example'])).err).toBe('no account viewer@lab.example\n');
      expect((await ctx().storage.db.selectFrom('users').select('email').execute()).map((u) => u.email)).toEqual(['lead@lab.example']);
      expect((await lead.get('/console/api/me')).statusCode).toBe(200);
    });

    it('ends live statistics streams at their next event after sign-out or a revoked role: no stats event after', async () => {
      await ctx().importStudy(PAIR_STUDY);
      await addUser(ctx().storage, 'lead@lab.example');
      await addUser(ctx().storage, 'viewer@lab.example', { jobId: 'fixture-pair', role: 'viewer' });
      const lead = await signIn(ctx().app, 'lead@lab.example');
      const viewer = await signIn(ctx().app, 'viewer@lab.example');
      await ctx().app.listen({ port: 0, host: '127.0.0.1' });
      const port = (ctx().app.server.address() as AddressInfo).port;
      const leadStream = openStream(port, lead.cookie);
      const viewerStream = openStream(port, viewer.cookie);
      await Promise.all([leadStream.firstEvent, viewerStream.firstEvent]);
      expect((await lead.post('/console/api/sign-out')).statusCode).toBe(200);
      expect((await cli(['user', 'revoke', 'viewer@lab.example', 'fixture-pair'])).code).toBe(0);
      const events = [leadStream.events.length, viewerStream.events.length];
      // The statistics change (a new session): a stream still open would send them.
      expect((await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=p1')).statusCode).toBe(200);
      const [leadEnd, viewerEnd] = await Promise.all([leadStream.ended, viewerStream.ended]);
      for (const [stream, before, end] of [[leadStream, events[0]!, leadEnd], [viewerStream, events[1]!, viewerEnd]] as const) {
        expect(stream.events.slice(before)).toEqual(['ended']);
        expect(end).toContain('event: ended\ndata: {"reason":"SIGN_IN_REQUIRED"}');
      }
    });
  });

  describe('first administrator', () => {
    it('is exactly one when 4 accounts are created at once in one process', async () => {
      for (let round = 0; round < 5; round++) {
        await ctx().storage.db.deleteFrom('users').execute();
        // PostgreSQL: the test holds the users table in the mode the creations lock it in; released once all 4 wait,
        // they contend for it together. SQLite: written one after the other.
        const { results: made, waiting } = await contendAt(ctx(), 'lock table users in share row exclusive mode', 4, () =>
          [0, 1, 2, 3].map((i) => createUser(ctx().storage, `r${round}u${i}@lab.example`, 'scrypt$1$1$1$AA$AA')),
        );
        expect(waiting).toBe(dialect === 'postgres' ? 4 : null);
        expect(made.filter((u) => u.admin)).toHaveLength(1);
      }
    });

    it('is exactly one when 4 `cli user add` processes run at once', async () => {
      // PostgreSQL: the test holds the users table in the mode the creations lock it in; released once the 4
      // processes wait on it, they contend for it together. SQLite: the processes' write transactions (BEGIN
      // IMMEDIATE) take the file one after the other.
      const { results: codes, waiting } = await contendAt(
        ctx(),
        'lock table users in share row exclusive mode',
        4,
        () => [0, 1, 2, 3].map((i) => runCliProcess(['user', 'add', `p${i}@lab.example`], `${PASSWORD}\n`, ctx().database.url)),
        40_000,
      );
      expect(waiting).toBe(dialect === 'postgres' ? 4 : null);
      expect(codes).toEqual([0, 0, 0, 0]);
      const users = await ctx().storage.db.selectFrom('users').select(['email', 'admin']).execute();
      expect(users).toHaveLength(4);
      expect(users.filter((u) => u.admin === 1)).toHaveLength(1);
    }, 60_000);
  });

  describe('anonymous bodies', () => {
    it('parses a rating over 16 KiB off the event loop: a long valid one is stored, 45,000 unknown keys get the usual 400', async () => {
      await ctx().importStudy(PAIR_STUDY);
      const playlist = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=bodies1'));
      const [first, second] = playlist.stimulis;
      const junk: Record<string, unknown> = ratingBody(playlist, first!.stimuliId);
      for (let i = 0; i < 45_000; i++) junk[`k${i}`] = 0;
      // Over 16 KiB, as the page sends it: with the session token header (without it: large-bodies.test.ts).
      const token = { 'glimpse-session-token': playlist.sessionToken! };
      const refused = await postJson(ctx().app, '/api/ratings/', junk, token);
      expect([refused.statusCode, json(refused)]).toEqual([400, { error: 'VALIDATION', message: 'invalid body: body.k0 unknown field', details: [{ path: 'body.k0', message: 'unknown field' }] }]);
      const longLogs = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ label: `step ${i}`, onsetMs: i, offsetMs: i + 1 })));
      expect(longLogs.length).toBeGreaterThan(16 * 1024);
      expect((await postJson(ctx().app, '/api/ratings/', ratingBody(playlist, second!.stimuliId, { logs: longLogs }), token)).statusCode).toBe(201);
      const small = await postJson(ctx().app, '/api/ratings/', { ...ratingBody(playlist, first!.stimuliId), extra: 1 });
      expect(json(small).message).toBe('invalid body: body.extra unknown field');
      const stored = await ctx().storage.db.selectFrom('ratings').select(['stimulus_id', 'logs']).where('session_id', '=', playlist.session_id!).execute();
      expect(stored).toEqual([{ stimulus_id: second!.stimuliId, logs: longLogs }]);
    });

    it('refuses a sign-in body over 4 KiB before parsing it', async () => {
      const res = await ctx().app.inject({ method: 'POST', url: '/console/api/sign-in', payload: { email: 'a@b.c', password: 'x'.repeat(5000) } });
      expect([res.statusCode, json(res).error]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    });
  });

  describe('quotas', () => {
    it('stores exactly 100 of 400 session-log posts sent at once; the rest get 429 LOGS_QUOTA', async () => {
      await ctx().importStudy(PAIR_STUDY);
      const playlist = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=quota1'));
      // PostgreSQL: the test holds the session's row, which each post's quota check locks; released once 10 wait on
      // it (the pool's connections: the others queue for one), they count together. SQLite: counted one after the other.
      const { results: answers, waiting } = await contendAt(ctx(), `select 1 from sessions where id = ${playlist.session_id} for update`, PG_POOL_CONNECTIONS, () =>
        Array.from({ length: 400 }, () => postJson(ctx().app, '/api/sessionlogs/', sessionLogsOf(playlist.sessionToken!))),
      );
      expect(waiting).toBe(dialect === 'postgres' ? PG_POOL_CONNECTIONS : null);
      const statuses = answers.map((a) => a.statusCode);
      expect(statuses.filter((s) => s === 201)).toHaveLength(100);
      expect(statuses.filter((s) => s === 429)).toHaveLength(300);
      expect(new Set(answers.filter((a) => a.statusCode === 429).map((a) => json(a).error))).toEqual(new Set(['LOGS_QUOTA']));
      const stored = await ctx().storage.db.selectFrom('session_logs').select((eb) => eb.fn.countAll().as('n')).where('session_id', '=', playlist.session_id!).executeTakeFirstOrThrow();
      expect(Number(stored.n)).toBe(100);
    }, 60_000);
  });
});

/** A live statistics stream of fixture-pair: the event names as they come, the first event, and the whole text once it ends. */
function openStream(port: number, cookie: string) {
  const events: string[] = [];
  let text = '';
  let gotFirst: () => void;
  const firstEvent = new Promise<void>((resolve) => (gotFirst = resolve));
  const ended = new Promise<string>((resolve, reject) => {
    const req = httpRequest({ port, host: '127.0.0.1', path: '/console/api/jobs/fixture-pair/events', headers: { cookie } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        for (const match of chunk.matchAll(/^event: (\w+)$/gm)) events.push(match[1]!);
        if (events.length > 0) gotFirst();
      });
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error('the stream did not end')));
    req.end();
  });
  return { events, firstEvent, ended };
}

/** `npm run cli` as its own process, against `databaseUrl`; resolves with its exit code. */
function runCliProcess(args: string[], input: string, databaseUrl: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/cli.ts', ...args], { env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? -1));
    child.stdin.end(input);
  });
}
