import { get, type IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { addUser, signIn, type ConsoleClient } from '../../testkit/console.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { getPlaylist, json, postJson, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { migrationsOf } from '../../src/server/storage/migrations.js';
import { PAIR_STUDY } from '../../testkit/studies.js';

/**
 * The live statistics (issue 21, item 3): the phase a session reached is read from its own column (no log body is
 * parsed), one computation per job per interval serves every stream watching it, streams are capped per account
 * and in all, and a stream whose session ends stops.
 */

interface EventStream {
  res: IncomingMessage;
  stats: Array<Record<string, any>>;
  ended: Promise<void>;
  next(): Promise<Record<string, any>>;
}

/** Opens the job's event stream on the listening app, collecting its `stats` events. */
function openStream(base: string, client: ConsoleClient, jobId = 'fixture-pair'): Promise<EventStream | { status: number; body: any }> {
  return new Promise((resolve, reject) => {
    get(`${base}/console/api/jobs/${jobId}/events`, { headers: { cookie: client.cookie } }, (res) => {
      if (res.statusCode !== 200) {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        return;
      }
      const stats: Array<Record<string, any>> = [];
      const waiting: Array<(s: Record<string, any>) => void> = [];
      let buffer = '';
      res.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^event: stats\ndata: (.*)$/s.exec(event)?.[1];
          if (data) {
            const parsed = JSON.parse(data) as Record<string, any>;
            stats.push(parsed);
            waiting.shift()?.(parsed);
          }
        }
      });
      const ended = new Promise<void>((done) => res.on('close', () => done()));
      resolve({ res, stats, ended, next: () => new Promise((r) => (stats.length > 0 && waiting.length === 0 ? r(stats.at(-1)!) : waiting.push(r))) });
    }).on('error', reject);
  });
}

const isStream = (s: EventStream | { status: number }): s is EventStream => 'res' in s;

describeEachDialect('live statistics', (dialect) => {
  const ctx = useServer(dialect, { rateLimits: false });

  const listen = async () => {
    await ctx().app.listen({ host: '127.0.0.1', port: 0 });
    return `http://127.0.0.1:${(ctx().app.server.address() as { port: number }).port}`;
  };

  it('reads where unfinished sessions stopped from the phase kept with their logs', async () => {
    await ctx().importStudy(PAIR_STUDY);
    await addUser(ctx().storage, 'lead@lab.example');
    const owner = await signIn(ctx().app, 'lead@lab.example');
    const playlist = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=leaver'));
    const states = [
      { state: 'Eligibility', status: 'visual', time: 1 },
      { state: 'Instruction', status: 'consent', time: 2 },
    ];
    const logs = { sessionToken: playlist.sessionToken, logStates: states, logMouseMovement: [], logMouseClick: [], logScroll: [], logKeyboard: [], logFocus: [], logDomSize: [] };
    expect((await postJson(ctx().app, '/api/sessionlogs/', logs)).statusCode).toBe(201);
    const session = await ctx().storage.db.selectFrom('sessions').select('log_phase').where('id', '=', playlist.session_id).executeTakeFirstOrThrow();
    expect(JSON.parse(session.log_phase!)).toEqual({ state: 'Instruction', status: 'consent' });
    const row = await ctx().storage.db.selectFrom('session_logs').select('state_classes').executeTakeFirstOrThrow();
    expect(row.state_classes).toBe('VI');
    // The body is not what the statistics read: emptying it changes nothing. (The session is made older than the
    // lease: only abandoned sessions count as having left.)
    await ctx().storage.db.updateTable('session_logs').set({ body: '{}' }).execute();
    await ctx().storage.db.updateTable('sessions').set({ created_at: new Date(Date.now() - 24 * 3600_000).toISOString() }).where('id', '=', playlist.session_id).execute();
    expect(json(await owner.get('/console/api/jobs/fixture-pair')).stats.dropOut).toEqual([{ phase: 'consent', sessions: 1 }]);
    // A later post without states keeps the phase reached.
    expect((await postJson(ctx().app, '/api/sessionlogs/', { ...logs, logStates: [] })).statusCode).toBe(201);
    expect(json(await owner.get('/console/api/jobs/fixture-pair')).stats.dropOut).toEqual([{ phase: 'consent', sessions: 1 }]);
  });

  it('migration 009 fills the phase and the state classes of logs stored before it, from their bodies', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const playlist = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=old'));
    const migration = migrationsOf(dialect)['009_console_hardening']!;
    await migration.down!(ctx().storage.db);
    const body = (states: Array<{ state: string; status: string }>) => JSON.stringify({ logStates: states.map((s, i) => ({ ...s, time: i })) });
    for (const states of [[{ state: 'Eligibility', status: 'visual' }, { state: 'Eligibility', status: 'visual' }], [{ state: 'FailEligibility', status: 'acuity' }], []]) {
      await ctx().storage.db.insertInto('session_logs').values({ session_id: playlist.session_id, body: body(states), created_at: new Date().toISOString() } as never).execute();
    }
    await migration.up(ctx().storage.db);
    const rows = await ctx().storage.db.selectFrom('session_logs').select('state_classes').orderBy('id').execute();
    expect(rows.map((r) => r.state_classes)).toEqual(['V', 'F', '']);
    const session = await ctx().storage.db.selectFrom('sessions').select('log_phase').where('id', '=', playlist.session_id).executeTakeFirstOrThrow();
    expect(JSON.parse(session.log_phase!)).toEqual({ state: 'FailEligibility', status: 'acuity' });
  });

  describe('streams', () => {
    it('computes a job\'s statistics once per interval for all its streams, and sends a change to each', async () => {
      await ctx().importStudy(PAIR_STUDY);
      await addUser(ctx().storage, 'lead@lab.example');
      const owner = await signIn(ctx().app, 'lead@lab.example');
      const base = await listen();
      const streams = (await Promise.all([0, 1, 2].map(() => openStream(base, owner)))).filter(isStream);
      expect(streams).toHaveLength(3);
      for (const s of streams) expect((await s.next()).sessions.started).toBe(0);
      const before = ctx().app.liveStats.computations;
      await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=p1');
      const started = Date.now();
      for (const s of streams) {
        await new Promise<void>((resolve) => {
          const check = () => (s.stats.at(-1)?.sessions.started === 1 ? resolve() : setTimeout(check, 50));
          check();
        });
      }
      const intervals = Math.ceil((Date.now() - started) / 2000) + 1;
      // One computation per interval for the job, not one per stream.
      expect(ctx().app.liveStats.computations - before).toBeLessThanOrEqual(intervals);
      for (const s of streams) s.res.destroy();
      await Promise.all(streams.map((s) => s.ended));
    }, 20_000);

    it('refuses a sixth stream of one account with a clear answer, and takes it again once one closes', async () => {
      await ctx().importStudy(PAIR_STUDY);
      await addUser(ctx().storage, 'lead@lab.example');
      const owner = await signIn(ctx().app, 'lead@lab.example');
      const base = await listen();
      const open = (await Promise.all([0, 1, 2, 3, 4].map(() => openStream(base, owner)))).filter(isStream);
      expect(open).toHaveLength(5);
      const sixth = await openStream(base, owner);
      expect(sixth).toEqual({ status: 429, body: { error: 'TOO_MANY_STREAMS', message: 'an account may watch at most 5 live pages at once: close one and try again' } });
      open[0]!.res.destroy();
      await open[0]!.ended;
      await new Promise((r) => setTimeout(r, 100));
      const again = await openStream(base, owner);
      expect(isStream(again)).toBe(true);
      for (const s of [...open.slice(1), again as EventStream]) s.res.destroy();
    }, 20_000);

    it('ends a stream within one interval of its sign-out, with no further event', async () => {
      await ctx().importStudy(PAIR_STUDY);
      await addUser(ctx().storage, 'lead@lab.example');
      const owner = await signIn(ctx().app, 'lead@lab.example');
      const base = await listen();
      const stream = await openStream(base, owner);
      if (!isStream(stream)) throw new Error('no stream');
      await stream.next();
      expect((await owner.post('/console/api/sign-out')).statusCode).toBe(200);
      const events = stream.stats.length;
      await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=after');
      await stream.ended;
      expect(stream.stats.length).toBe(events);
      expect(ctx().app.liveStats.openStreams).toBe(0);
    }, 20_000);
  });
});

describeEachDialect('live statistics caps', (dialect) => {
  const ctx = useServer(dialect, { rateLimits: false, liveStreams: { total: 2 } });

  it('refuses a stream past the node\'s total with a clear answer', async () => {
    await ctx().importStudy(PAIR_STUDY);
    await addUser(ctx().storage, 'a@lab.example');
    await addUser(ctx().storage, 'b@lab.example', { jobId: 'fixture-pair', role: 'viewer' });
    const a = await signIn(ctx().app, 'a@lab.example');
    const b = await signIn(ctx().app, 'b@lab.example');
    await ctx().app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(ctx().app.server.address() as { port: number }).port}`;
    const open = (await Promise.all([openStream(base, a), openStream(base, a)])).filter(isStream);
    expect(open).toHaveLength(2);
    expect(await openStream(base, b)).toEqual({ status: 429, body: { error: 'TOO_MANY_STREAMS', message: 'this server serves at most 2 live pages at once: try again in a moment' } });
    for (const s of open) s.res.destroy();
  });
});
