import { request } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { SESSION_TOKEN_HEADER } from '../../src/contract/headers.js';
import type { BubblePlaylistStimulus, PlaylistResponse } from '../../src/contract/playlist.js';
import { buildApp } from '../../src/server/app.js';
import { openStorage } from '../../src/server/storage/open.js';
import type { Storage } from '../../src/server/storage/types.js';
import { importStudy } from '../../src/server/study/import.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../../testkit/databases.js';
import { contendAt } from '../../testkit/interleave.js';
import { countRows, getPlaylist, json, postJson, ratingBody, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { PAIR_STUDY, studyOf, writeStudy } from '../../testkit/studies.js';

/**
 * Server hardening (issue 14): what an adversarial probe broke, each with its test. They assert what happens (who
 * is answered first, what is stored), never how fast: load on a shared machine must not fail them, and figures
 * belong to bench/ (bench:api, bench:console).
 */

const samples = (n: number, wrong = false) => Array.from({ length: n }, (_, i) => (wrong ? { x: String(i), y: 'y', t: 't', vt: 'v' } : { x: i, y: i, t: i * 16.7, vt: 0 }));

describeEachDialect('hardening', (dialect) => {
  const ctx = useServer(dialect);
  const bubble = async (perPlaylist = 2) => {
    await ctx().importStudy(await writeStudy(studyOf('bubble', { id: 'hard-bubble', playlists: 1, perPlaylist })));
    return json<PlaylistResponse<BubblePlaylistStimulus>>(await getPlaylist(ctx().app, '/api/getbubble/hard-bubble', 'platform=prolific&PROLIFIC_PID=hard1'));
  };
  const screening = (p: PlaylistResponse<BubblePlaylistStimulus>, extra: Record<string, unknown> = {}) => ({
    stimuli_id: p.stimulis[0]!.stimuli_id,
    session_id: p.session_id,
    session_token: p.sessionToken,
    mouse_logs: { mediaA: samples(3), mediaB: [] },
    screening_no: 0,
    logs: null,
    ...extra,
  });

  describe('text that cannot be stored', () => {
    it.each([
      ['a NUL in a browser check', '/api/bchecks/', { b_name: 'Chr\u0000ome', b_version: '1', b_os: 'Linux', screen_size: '1x1' }, 'body.b_name', 'bchecks'],
      ['a lone surrogate in a browser check', '/api/bchecks/', { b_name: 'Chrome', b_version: '\ud800', b_os: 'Linux', screen_size: '1x1' }, 'body.b_version', 'bchecks'],
      ['a NUL in a consent form', '/api/consent/', { emailAddress: 'a@b.fr', paraphe: 'AB', gender: 'M.', name: 'A\u0000', familyName: 'B', birthCountry: 'France', birthDay: '1990-01-01', currentDate: { day: 1, month: 2, year: 2026 } }, 'body.name', 'consents'],
    ] as const)('refuses %s with 400 BAD_TEXT and stores nothing', async (_what, url, body, path, table) => {
      const res = await postJson(ctx().app, url, body);
      expect([res.statusCode, json(res).error, json(res).details[0].path]).toEqual([400, 'BAD_TEXT', path]);
      expect(await countRows(ctx().storage, table)).toBe(0);
    });

    it('refuses NUL in a rating and a lone surrogate in mouse logs, on both body paths', async () => {
      await ctx().importStudy(PAIR_STUDY);
      const p = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair'));
      const rating = await postJson(ctx().app, '/api/ratings/', ratingBody(p, p.stimulis[0]!.stimuliId, { logs: 'inner:1x1\u0000' }));
      expect([rating.statusCode, json(rating).error]).toEqual([400, 'BAD_TEXT']);
      const b = await bubble();
      const res = await postJson(ctx().app, '/api/bubblescreenings/', screening(b, { timing: undefined, logs: null, session_token: b.sessionToken, mouse_logs: { mediaA: [], mediaB: [] }, extra: '\udc00' }));
      expect([res.statusCode, json(res).error]).toEqual([400, 'BAD_TEXT']);
      expect(await countRows(ctx().storage, 'ratings')).toBe(0);
      expect(await countRows(ctx().storage, 'screenings')).toBe(0);
    });
  });

  describe('bodies of nested brackets', () => {
    // Checking their text recursed once per bracket and overflowed the stack: a 500 on the event loop's path, and in
    // a worker an exception that failed every body it was reading.
    it('answers 400 on every log and answer route, small (read on the event loop) or large (in a worker), and stores nothing', async () => {
      const b = await bubble();
      const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
      const post = (url: string, payload: string) =>
        ctx().app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', [SESSION_TOKEN_HEADER]: b.sessionToken! }, payload });
      for (const depth of [8_000, 200_000]) {
        for (const url of ['/api/ratings/', '/api/sessionlogs/', '/api/bubblescreenings/']) {
          const res = await post(url, nested(depth));
          expect([url, depth, res.statusCode, json(res).error]).toEqual([url, depth, 400, 'VALIDATION']);
        }
      }
      const logs = { sessionToken: b.sessionToken, logStates: [], logMouseMovement: [], logMouseClick: [], logScroll: [], logKeyboard: [], logFocus: [], logDomSize: [] };
      expect((await post('/api/sessionlogs/', JSON.stringify(logs))).statusCode).toBe(201); // the server reads on
      for (const table of ['ratings', 'screenings'] as const) expect(await countRows(ctx().storage, table)).toBe(0);
      expect(await countRows(ctx().storage, 'session_logs')).toBe(1);
    });
  });

  describe('quotas', () => {
    it('takes at most 20 plays of a bubble stimulus and a mouse-log budget sized from the playlist', async () => {
      const p = await bubble(1); // one test stimulus: 8 MiB of mouse logs in all
      const post = (extra: Record<string, unknown>) => postJson(ctx().app, '/api/bubblescreenings/', screening(p, extra), { [SESSION_TOKEN_HEADER]: p.sessionToken! });
      const tooMany = await post({ screening_no: 20 });
      expect([tooMany.statusCode, json(tooMany).error]).toEqual([429, 'ANSWER_QUOTA']);
      const big = { mediaA: samples(90_000), mediaB: [] }; // about 3.5 MB of JSON
      expect((await post({ screening_no: 0, mouse_logs: big })).statusCode).toBe(201);
      expect((await post({ screening_no: 1, mouse_logs: big })).statusCode).toBe(201);
      const over = await post({ screening_no: 2, mouse_logs: big });
      expect([over.statusCode, json(over).error]).toEqual([429, 'ANSWER_QUOTA']);
      expect(await countRows(ctx().storage, 'screenings')).toBe(2);
    });

    it('counts the mouse-log budget in the writing transaction: 3 posts sent at once, room for 2, store 2 (issue 25)', async () => {
      const p = await bubble(1);
      const big = { mediaA: samples(90_000), mediaB: [] };
      // All 3 in flight at once: by default a session sends at most 2 large bodies at once, and the third was refused
      // unread (429 TOO_MANY_UPLOADS, large-bodies.ts) before any quota was counted.
      ctx().app.largeBodies.limits.perSession = 3;
      // PostgreSQL: the test holds the session's row, which each post's early check (before its pages) locks; released
      // once all 3 wait there, they all pass it (nothing can be stored meanwhile), and only the check of the writing
      // transaction can refuse the third. SQLite: sent together, written one after the other.
      const { results: answers, waiting } = await contendAt(ctx(), `select 1 from sessions where id = ${p.session_id} for update`, 3, () =>
        [0, 1, 2].map((n) => postJson(ctx().app, '/api/bubblescreenings/', screening(p, { screening_no: n, mouse_logs: big }), { [SESSION_TOKEN_HEADER]: p.sessionToken! })),
      );
      expect(waiting).toBe(dialect === 'postgres' ? 3 : null);
      expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 201, 429]);
      expect(json(answers.find((a) => a.statusCode === 429)!).error).toBe('ANSWER_QUOTA');
      expect(await countRows(ctx().storage, 'screenings')).toBe(2);
    });

    it('stores at most 100 session-log posts, and none an hour after completion', async () => {
      await ctx().importStudy(PAIR_STUDY);
      const p = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=logger'));
      const logs = { sessionToken: p.sessionToken, logStates: [], logMouseMovement: [], logMouseClick: [], logScroll: [], logKeyboard: [], logFocus: [], logDomSize: [] };
      for (let i = 0; i < 100; i++) expect((await postJson(ctx().app, '/api/sessionlogs/', logs)).statusCode).toBe(201);
      const over = await postJson(ctx().app, '/api/sessionlogs/', logs);
      expect([over.statusCode, json(over).error]).toEqual([429, 'LOGS_QUOTA']);
      await ctx().storage.db.deleteFrom('session_logs').execute();
      for (const s of p.stimulis) await postJson(ctx().app, '/api/ratings/', ratingBody(p, s.stimuliId));
      await ctx().app.inject(`/api/sessions/token/${p.sessionToken}`);
      expect((await postJson(ctx().app, '/api/sessionlogs/', logs)).statusCode).toBe(201); // the end screen's logs
      await ctx().storage.db.updateTable('sessions').set({ completed_at: new Date(Date.now() - 2 * 3600_000).toISOString() }).execute();
      const late = await postJson(ctx().app, '/api/sessionlogs/', logs);
      expect([late.statusCode, json(late).error]).toEqual([429, 'LOGS_QUOTA']);
      expect(await countRows(ctx().storage, 'session_logs')).toBe(1);
    });

    it('refuses a large body without the session token header, and one whose header names no session, before reading it', async () => {
      const p = await bubble();
      const body = screening(p, { mouse_logs: { mediaA: samples(40_000), mediaB: [] } });
      const anonymous = await postJson(ctx().app, '/api/bubblescreenings/', body);
      expect([anonymous.statusCode, json(anonymous).error]).toEqual([401, 'SESSION_TOKEN_REQUIRED']);
      const stranger = await postJson(ctx().app, '/api/bubblescreenings/', body, { [SESSION_TOKEN_HEADER]: 'Z'.repeat(43) });
      expect(stranger.statusCode).toBe(403);
      const mismatch = await postJson(ctx().app, '/api/bubblescreenings/', { ...body, session_token: 'Y'.repeat(43) }, { [SESSION_TOKEN_HEADER]: p.sessionToken! });
      expect(mismatch.statusCode).toBe(403);
      expect(await countRows(ctx().storage, 'screenings')).toBe(0);
    });
  });

  describe('origins and headers', () => {
    it('refuses a state-changing request from a foreign origin and stores nothing; its own pages and scripts pass', async () => {
      const body = { b_name: 'Chrome', b_version: '1', b_os: 'Linux', screen_size: '1x1' };
      for (const headers of [{ origin: 'https://evil.example' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }]) {
        const res = await ctx().app.inject({ method: 'POST', url: '/api/bchecks/', headers: { 'content-type': 'text/plain', host: 'glimpse.test', ...headers }, payload: JSON.stringify(body) });
        expect([res.statusCode, json(res).error]).toEqual([403, 'FOREIGN_ORIGIN']);
      }
      expect(await countRows(ctx().storage, 'bchecks')).toBe(0);
      const own = await ctx().app.inject({ method: 'POST', url: '/api/bchecks/', headers: { 'content-type': 'text/plain', host: 'glimpse.test', origin: 'https://glimpse.test', 'sec-fetch-site': 'same-origin' }, payload: JSON.stringify(body) });
      expect(own.statusCode).toBe(201);
      expect((await postJson(ctx().app, '/api/bchecks/', body)).statusCode).toBe(201); // no Origin: a script
    });

    it('sends the security headers: a CSP without inline script, no framing, nosniff, a same-origin referrer', async () => {
      const res = await ctx().app.inject('/meta.json');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('same-origin');
    });
  });
});

describe('rate limits and timeouts', () => {
  let database: TestDatabase;
  let storage: Storage;
  let app: FastifyInstance;
  afterEach(async () => {
    await app?.close();
    await storage?.close();
    await database?.drop();
  });
  async function server(opts: Parameters<typeof buildApp>[0] extends infer O ? Partial<O> : never) {
    database = await createTestDatabase('sqlite');
    storage = await openStorage({ databaseUrl: database.url });
    await importStudy(storage, PAIR_STUDY, `${database.dir}/media`);
    app = await buildApp({ storage, mediaDir: `${database.dir}/media`, webDir: `${database.dir}/web`, ...opts });
    return app;
  }

  it('limits playlist calls (sessions) and consent forms per address, with a clear 429', async () => {
    await server({ rateLimits: { sessionsPerMinute: 5, consentsPerMinute: 2, answersPerMinute: 0 } });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await getPlaylist(app, '/api/getrandomtasks/fixture-pair', `platform=prolific&PROLIFIC_PID=rl${i}`)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const limited = await getPlaylist(app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=rl9');
    expect(json(limited)).toMatchObject({ error: 'RATE_LIMITED', message: expect.stringContaining('at most 5') });
    expect(await countRows(storage, 'sessions')).toBe(5);
    const form = { emailAddress: 'a@b.fr', paraphe: 'AB', gender: 'M.', name: 'A', familyName: 'B', birthCountry: 'France', birthDay: '1990-01-01', currentDate: { day: 1, month: 2, year: 2026 } };
    const consents = [];
    for (let i = 0; i < 3; i++) consents.push((await postJson(app, '/api/consent/', form)).statusCode);
    expect(consents).toEqual([201, 201, 429]);
    expect(await countRows(storage, 'consents')).toBe(2);
  });

  it('cuts off a client that stops sending its body', async () => {
    await server({ idleTimeoutMs: 1000 });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    socket.write('POST /api/bchecks/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"b_name":');
    const started = Date.now();
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
    });
    // Closed (a 408, or the socket simply ended) well before any default timeout.
    expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await countRows(storage, 'bchecks')).toBe(0);
  });

  it('answers a request that has arrived whole even when its answer takes longer than the idle timeout, and still cuts off the next request on that socket if it stalls', async () => {
    await server({ idleTimeoutMs: 300 });
    // An answer that waits its turn (as a paged mouse log does in its queue at saturation).
    app.get('/slow-answer', async () => new Promise((resolve) => setTimeout(() => resolve({ answered: true }), 900)));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let received = '';
    let answered = false;
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('data', (chunk) => {
      received += chunk.toString();
      if (answered || !received.endsWith('{"answered":true}')) return;
      answered = true;
      received = '';
      // The next request on the kept socket stops sending its body.
      socket.write('POST /api/bchecks/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"b_name":');
    });
    socket.write('GET /slow-answer HTTP/1.1\r\nHost: x\r\n\r\n');
    await closed;
    expect(answered).toBe(true);
    // Closed with a 408, or simply ended.
    expect(received === '' || received.startsWith('HTTP/1.1 408')).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await countRows(storage, 'bchecks')).toBe(0);
  });

  it('cuts off a client that stops reading its answer', async () => {
    await server({ idleTimeoutMs: 300 });
    // Far more than the kernel's socket buffers hold, so that the server's writes wait on the client.
    const big = Buffer.alloc(64 * 1024 * 1024, 1);
    app.get('/big-answer', async (_request, reply) => reply.type('application/octet-stream').send(big));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    socket.pause();
    const started = Date.now();
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /big-answer HTTP/1.1\r\nHost: x\r\n\r\n');
    // The server ends the socket: the paused client sees it once it reads again.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    socket.resume();
    let read = 0;
    socket.on('data', (chunk) => (read += chunk.length));
    await closed;
    expect(read).toBeLessThan(big.length);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('answers a 12 MB junk body without its token before the body is sent, and answers other requests while it parses one with its token', async () => {
    await server({});
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}`;
    const p = json<GenericPlaylist>(await getPlaylist(app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=junk'));
    const junk = JSON.stringify({ stimuli_id: 1, session_id: p.session_id, session_token: p.sessionToken, screening_no: 0, logs: null, mouse_logs: { mediaA: samples(170_000, true), mediaB: samples(170_000, true) } });
    expect(junk.length).toBeGreaterThan(12_000_000);

    // Without the token header: refused from the headers alone, the rest of the body never sent.
    const socket = connect(port, '127.0.0.1');
    socket.write(`POST /api/bubblescreenings/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${junk.length}\r\n\r\n`);
    socket.write(junk.slice(0, 64 * 1024));
    const refusal = await new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()).includes('}') && resolve(text));
      socket.on('close', () => resolve(text));
    });
    socket.destroy();
    expect(refusal).toMatch(/^HTTP\/1\.1 401/);
    expect(refusal).toContain('SESSION_TOKEN_REQUIRED');

    // With its token: parsed and refused in a worker thread. /meta.json, asked again and again once the whole body
    // is sent, is answered before the junk's refusal (a parse on the event loop would answer none meanwhile).
    let sent = false;
    let refused = false;
    const junkAnswer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${url}/api/bubblescreenings/`, { method: 'POST', headers: { 'content-type': 'application/json', [SESSION_TOKEN_HEADER]: p.sessionToken! } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => ((refused = true), resolve({ status: res.statusCode!, body })));
      });
      req.on('error', reject);
      req.end(junk, () => (sent = true));
    });
    let answeredMeanwhile = 0;
    while (!refused) {
      const meta = await fetch(`${url}/meta.json`);
      expect(meta.status).toBe(200);
      if (sent && !refused) answeredMeanwhile++;
    }
    const { status, body } = await junkAnswer;
    expect([status, (JSON.parse(body) as { error: string }).error]).toEqual([400, 'VALIDATION']);
    expect(answeredMeanwhile).toBeGreaterThan(0);
    expect(await countRows(storage, 'screenings')).toBe(0);
  });
});
