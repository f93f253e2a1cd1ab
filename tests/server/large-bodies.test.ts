import { request as httpRequest, type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { SESSION_TOKEN_HEADER } from '../../src/contract/headers.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { PAIR_STUDY } from '../../testkit/studies.js';
import { countRows, getPlaylist, json, postJson, ratingBody, useServer, type GenericPlaylist } from '../../testkit/server.js';

/**
 * Bounded anonymous input (issue 34, item 1): the fourth probe held 2.2 GB of the server's memory with 200
 * anonymous 12 MiB rating bodies, and no session token was needed. Now a rating over 16 KiB needs its session's
 * token header before a byte is read, large bodies in flight share a per-process budget and a per-session cap, and
 * the answer routes have a per-address rate limit.
 */

const MiB = 1024 * 1024;

describeEachDialect('large bodies', (dialect) => {
  const ctx = useServer(dialect, { largeBodies: { budgetBytes: 3 * MiB, perSession: 1 }, rateLimits: false });
  const session = async (pid: string) => {
    if (pid === 'first') await ctx().importStudy(PAIR_STUDY);
    return json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', `platform=prolific&PROLIFIC_PID=${pid}`));
  };
  const tokenOf = (p: GenericPlaylist) => ({ [SESSION_TOKEN_HEADER]: p.sessionToken! });

  it('refuses an anonymous rating over 16 KiB before reading it, and a stranger\'s token; stores nothing', async () => {
    const p = await session('first');
    const big = ratingBody(p, p.stimulis[0].stimuliId, { logs: 'x'.repeat(64 * 1024) });
    const anonymous = await postJson(ctx().app, '/api/ratings/', big);
    expect([anonymous.statusCode, json(anonymous).error]).toEqual([401, 'SESSION_TOKEN_REQUIRED']);
    expect(json(anonymous).message).toBe('a body over 16384 bytes (or of unknown length) needs the glimpse-session-token header');
    const stranger = await postJson(ctx().app, '/api/ratings/', big, { [SESSION_TOKEN_HEADER]: 'S'.repeat(43) });
    expect([stranger.statusCode, json(stranger).error]).toEqual([403, 'FORBIDDEN']);
    expect(await countRows(ctx().storage, 'ratings')).toBe(0);
    // The page's own rating, small or large, is stored.
    const small = await postJson(ctx().app, '/api/ratings/', ratingBody(p, p.stimulis[0].stimuliId));
    expect(small.statusCode).toBe(201);
    const withToken = await postJson(ctx().app, '/api/ratings/', ratingBody(p, p.stimulis[1].stimuliId, { logs: 'y'.repeat(64 * 1024) }), tokenOf(p));
    expect(withToken.statusCode).toBe(201);
    expect(await countRows(ctx().storage, 'ratings')).toBe(2);
  });

  it('refuses large bodies past the budget with 503 and Retry-After, and a second one of a session with 429, until the first is in', async () => {
    await ctx().app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = ctx().app.server.address() as AddressInfo;
    const [a, b, c] = [await session('first'), await session('b'), await session('c')];
    // A log of about `size` bytes: mouse samples of 29 bytes each.
    const logsOf = (p: GenericPlaylist, size: number) =>
      JSON.stringify({ sessionToken: p.sessionToken, logStates: [], logMouseMovement: Array.from({ length: Math.ceil(size / 29) }, () => ({ posX: 1, posY: 2, time: 3 })), logMouseClick: [], logScroll: [], logKeyboard: [], logFocus: [], logDomSize: [] });
    // A slow sender: its headers and half its body, then nothing until we say so.
    const slow = (p: GenericPlaylist, text: string) => {
      let finish!: () => void;
      const answer = new Promise<{ status: number; retryAfter?: string; body: string }>((resolve, reject) => {
        const req: ClientRequest = httpRequest(
          { port, method: 'POST', path: '/api/sessionlogs/', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...tokenOf(p) } },
          (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined, body }));
          },
        );
        req.on('error', reject);
        req.write(text.slice(0, 1000));
        finish = () => req.end(text.slice(1000));
      });
      return { answer, finish: () => finish() };
    };
    const first = slow(a, logsOf(a, 2 * MiB));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ctx().app.largeBodies.bytesInFlight).toBeGreaterThan(2 * MiB);

    // Budget: 3 MiB, 2 MiB held; another session's 2 MiB is refused at once.
    const refused = await postJson(ctx().app, '/api/sessionlogs/', JSON.parse(logsOf(b, 2 * MiB)), tokenOf(b));
    expect([refused.statusCode, json(refused).error, refused.headers['retry-after']]).toEqual([503, 'BODIES_BUSY', '2']);
    // Per session: a second large body of the sender's own session waits its turn (429).
    const second = await postJson(ctx().app, '/api/sessionlogs/', JSON.parse(logsOf(a, 100 * 1024)), tokenOf(a));
    expect([second.statusCode, json(second).error, second.headers['retry-after']]).toEqual([429, 'TOO_MANY_UPLOADS', '2']);
    // A small log of another session passes by.
    expect((await postJson(ctx().app, '/api/sessionlogs/', JSON.parse(logsOf(c, 10)))).statusCode).toBe(201);
    expect(await countRows(ctx().storage, 'session_logs')).toBe(1);

    first.finish();
    expect((await first.answer).status).toBe(201);
    expect(ctx().app.largeBodies.bytesInFlight).toBe(0);
    const again = await postJson(ctx().app, '/api/sessionlogs/', JSON.parse(logsOf(b, 2 * MiB)), tokenOf(b));
    expect(again.statusCode).toBe(201);
    expect(await countRows(ctx().storage, 'session_logs')).toBe(3);
  });

  it('gives the budget back when a sender goes away mid-body', async () => {
    await ctx().app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = ctx().app.server.address() as AddressInfo;
    const a = await session('first');
    const req = httpRequest({ port, method: 'POST', path: '/api/sessionlogs/', headers: { 'content-type': 'application/json', 'content-length': 2 * MiB, ...tokenOf(a) } });
    req.on('error', () => undefined);
    req.write('{"sessionToken":');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ctx().app.largeBodies.bytesInFlight).toBe(2 * MiB);
    req.destroy();
    await expect.poll(() => ctx().app.largeBodies.bytesInFlight, { timeout: 2000 }).toBe(0);
  });
});

describeEachDialect('answers per address', (dialect) => {
  const ctx = useServer(dialect, { rateLimits: { sessionsPerMinute: 0, consentsPerMinute: 0, answersPerMinute: 3 } });

  it('limits the answer routes per address with a clear 429 that stores nothing; another address goes on', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const p = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair'));
    const rate = (i: number, remoteAddress = '127.0.0.1') =>
      ctx().app.inject({ method: 'POST', url: '/api/ratings/', remoteAddress, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ratingBody(p, p.stimulis[i % 2].stimuliId, { session_token: i < 3 ? p.sessionToken : 'Z'.repeat(43) })) });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await rate(i)).statusCode);
    // Two stored, the same presentation again (answered with the stored one), then the limit.
    expect(statuses).toEqual([201, 201, 200, 429]);
    const limited = await rate(0);
    expect(json(limited)).toMatchObject({ error: 'RATE_LIMITED', message: expect.stringContaining('at most 3') });
    expect(await countRows(ctx().storage, 'ratings')).toBe(2);
    // The /64 of an IPv6 client is one address; the next /64 is another.
    expect((await rate(3, '2001:db8::1')).statusCode).toBe(403);
  });
});
