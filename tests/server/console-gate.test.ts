import { readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { addUser, multipartBody, signIn, zipFolder } from '../../testkit/console.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { json, useServer } from '../../testkit/server.js';
import { jobFields, PAIR_STUDY, writeStudy } from '../../testkit/studies.js';

/**
 * The console's one authorisation gate (issue 21, item 1): decided on the route the router matched, so no spelling
 * of a path reaches a console handler without a session, nor changes anything without the CSRF token. Walks every
 * route the app registered under /console/, under several spellings of its path.
 */

const SAMPLE_PARAMS: Record<string, string> = { id: 'fixture-pair', platform: 'prolific', file: 'approve.csv' };

/** A route pattern with its parameters filled in. */
const filled = (pattern: string) => pattern.replace(/:(\w+)/g, (_m, name: string) => SAMPLE_PARAMS[name] ?? 'x');

/** Ways to write the same path that a router may decode, normalise or refuse. */
function spellings(path: string): string[] {
  return [
    path,
    path.replace('/api/', '/%61pi/'),
    path.replace('/console/', '/%63onsole/'),
    path.replace('/console/api/', '/console%2Fapi/'),
    path.replace('/console/api/', '/console%2fapi/'),
    path.replace('/console/api/', '/console//api/'),
    `/${path}`,
    path.replace('/console/api/', '/console/./api/'),
    path.replace('/console/api/', '/console/x/../api/'),
    path.replace('/console/api/', '/console/%2e/api/'),
    path.replace('/console/', '/Console/'),
    path.replace('/api/', '/API/'),
    path.replace(/\/([a-z])/, (_m, c: string) => `/%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    path.replace(/\/([^/]+)$/, (_m, last: string) => `/${encodeURIComponent(last).replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`)}`),
  ];
}

/**
 * A gated answer, or one that reached no console handler: the router matched nothing (404 "no route"), or the web
 * app's fallback (503 here: no web app is built for the tests).
 */
function refusedOrUnmatched(res: LightMyRequestResponse, gated: { status: number; error: string }): boolean {
  // HEAD answers carry the status and headers only.
  if (res.body === '') return [gated.status, 404, 503].includes(res.statusCode);
  const body = res.headers['content-type']?.toString().startsWith('application/json') ? json(res) : null;
  if (res.statusCode === gated.status && body?.error === gated.error) return true;
  if (res.statusCode === 404 && body?.error === 'NOT_FOUND' && String(body.message).startsWith('no route')) return true;
  return res.statusCode === 503 && body?.error === 'WEB_APP_NOT_BUILT';
}

describeEachDialect('console gate', (dialect) => {
  const ctx = useServer(dialect);

  /** The media store's job folders, and whatever an import left in its staging folder. */
  const mediaFolders = async () => [...(await readdir(ctx().mediaDir)).filter((f) => f !== '.staging'), ...(await readdir(`${ctx().mediaDir}/.staging`).catch(() => []))].sort();
  const consoleRoutes = () => {
    const routes = ctx().app.registeredRoutes.filter((r) => r.url.startsWith('/console/') && r.url !== '/console/api/sign-in');
    return routes;
  };

  it('registers every console route under /console/api/, and finds them all (the walk below is not empty)', () => {
    const routes = consoleRoutes();
    expect(routes.every((r) => r.url.startsWith('/console/api/'))).toBe(true);
    expect(routes.map((r) => `${r.method} ${r.url}`)).toEqual(expect.arrayContaining(['GET /console/api/jobs', 'POST /console/api/import', 'POST /console/api/jobs/:id/status', 'GET /console/api/jobs/:id/events']));
    expect(routes.length).toBeGreaterThanOrEqual(15);
  });

  it('answers 401 to an anonymous request on every console route, under every spelling, and creates nothing', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const zip = await zipFolder(dirname(await writeStudy({ id: 'anon-upload', job: jobFields('pair_comparison'), playlists: [{ stimuli: [{ sourceA: 'red.png', sourceB: 'green.png' }] }] })));
    const { payload, contentType } = multipartBody(zip);
    let exact = 0;
    for (const route of consoleRoutes()) {
      for (const url of spellings(filled(route.url))) {
        const upload = route.url === '/console/api/import';
        const res = await ctx().app.inject({
          method: route.method as 'GET',
          url,
          headers: { 'content-type': upload ? contentType : 'application/json' },
          payload: route.method === 'GET' || route.method === 'HEAD' ? undefined : upload ? payload : JSON.stringify({ status: 'closed', confirm: true, sessionId: 1 }),
        });
        expect([route.method, url, refusedOrUnmatched(res, { status: 401, error: 'SIGN_IN_REQUIRED' })], res.body).toEqual([route.method, url, true]);
        if (res.statusCode === 401) exact++;
      }
    }
    // Decoded spellings (%61, %63, %2e of a parameter) match the route and meet the gate.
    expect(exact).toBeGreaterThan(consoleRoutes().length * 3);
    expect((await ctx().storage.db.selectFrom('jobs').select(['id', 'status']).execute())).toEqual([{ id: 'fixture-pair', status: 'open' }]);
    expect(await mediaFolders()).toEqual(['fixture-pair']);
  });

  it('answers 403 to every unsafe method without the CSRF token, under every spelling, and changes nothing', async () => {
    await ctx().importStudy(PAIR_STUDY);
    await addUser(ctx().storage, 'lead@lab.example');
    const admin = await signIn(ctx().app, 'lead@lab.example');
    const zip = await zipFolder(dirname(await writeStudy({ id: 'csrf-upload', job: jobFields('pair_comparison'), playlists: [{ stimuli: [{ sourceA: 'red.png', sourceB: 'green.png' }] }] })));
    const { payload, contentType } = multipartBody(zip);
    const unsafe = consoleRoutes().filter((r) => !['GET', 'HEAD'].includes(r.method));
    expect(unsafe.length).toBeGreaterThanOrEqual(5);
    for (const route of unsafe) {
      for (const url of spellings(filled(route.url))) {
        const upload = route.url === '/console/api/import';
        const res = await ctx().app.inject({
          method: route.method as 'POST',
          url,
          headers: { cookie: admin.cookie, 'content-type': upload ? contentType : 'application/json' },
          payload: upload ? payload : JSON.stringify({ status: 'closed', confirm: true, sessionId: 1 }),
        });
        expect([url, refusedOrUnmatched(res, { status: 403, error: 'CSRF' })], res.body).toEqual([url, true]);
      }
    }
    expect((await ctx().storage.db.selectFrom('jobs').select(['id', 'status']).execute())).toEqual([{ id: 'fixture-pair', status: 'open' }]);
    expect(await mediaFolders()).toEqual(['fixture-pair']);
    // The session is still alive (sign-out without the token was refused too).
    expect((await admin.get('/console/api/me')).statusCode).toBe(200);
  });

  describe('sign-in stays open', () => {
    it('is the one console route that needs no session', async () => {
      const res = await ctx().app.inject({ method: 'POST', url: '/console/%61pi/sign-in', payload: { email: 'nobody@lab.example', password: 'wrong password' } });
      expect([res.statusCode, json(res).error]).toEqual([401, 'SIGN_IN_FAILED']);
    });
  });
});
