import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, useCliEnvironment } from '../../testkit/cli.js';
import { addUser, multipartBody, PASSWORD, signIn, zipFolder } from '../../testkit/console.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { takeTest } from '../../testkit/participants.js';
import { getPlaylist, json, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { jobFields, PAIR_STUDY, writeStudy } from '../../testkit/studies.js';

/**
 * The researcher console's API (issue 15) on both databases: accounts and sign-in, CSRF, roles, the controls, the
 * import of a study zip, exports and reports. Participant routes stay anonymous.
 */

const ROUTES: Array<[method: 'GET' | 'POST', url: string]> = [
  ['GET', '/console/api/me'],
  ['GET', '/console/api/jobs'],
  ['GET', '/console/api/jobs/fixture-pair'],
  ['GET', '/console/api/jobs/fixture-pair/events'],
  ['GET', '/console/api/jobs/fixture-pair/participants'],
  ['POST', '/console/api/jobs/fixture-pair/status'],
  ['POST', '/console/api/jobs/fixture-pair/withdraw'],
  ['POST', '/console/api/import'],
  ['GET', '/console/api/jobs/fixture-pair/export'],
  ['POST', '/console/api/jobs/fixture-pair/screen'],
  ['GET', '/console/api/jobs/fixture-pair/decisions/prolific'],
  ['GET', '/console/api/jobs/fixture-pair/decisions/prolific/approve.csv'],
  ['GET', '/console/api/jobs/fixture-pair/report.html'],
  ['GET', '/console/api/jobs/fixture-pair/report.json'],
  ['POST', '/console/api/sign-out'],
];

describeEachDialect('researcher console', (dialect) => {
  const ctx = useServer(dialect);
  useCliEnvironment(ctx);

  describe('access', () => {
    it('creates accounts with `cli user add` (password read from stdin, hashed with scrypt); the first administers every job', async () => {
      expect((await cli(['user', 'add', 'Lead@Lab.example'], `${PASSWORD}\n`)).out).toBe('account lead@lab.example created (administrator: owner of every job)\n');
      expect((await cli(['user', 'add', 'second@lab.example'], `${PASSWORD}\n`)).out).toBe('account second@lab.example created\n');
      expect((await cli(['user', 'add', 'short@lab.example'], 'short\n')).err).toContain('at least 10 characters');
      expect((await cli(['user', 'add', 'lead@lab.example'], `${PASSWORD}\n`)).err).toContain('exists already');
      const users = await ctx().storage.db.selectFrom('users').select(['email', 'password_hash', 'admin']).orderBy('id').execute();
      expect(users.map((u) => [u.email, u.admin])).toEqual([['lead@lab.example', 1], ['second@lab.example', 0]]);
      expect(users[0]!.password_hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
      expect(users[0]!.password_hash).not.toContain(PASSWORD);
      await ctx().importStudy(PAIR_STUDY);
      expect((await cli(['user', 'grant', 'second@lab.example', 'fixture-pair', 'viewer'])).out).toBe('second@lab.example is viewer of fixture-pair\n');
    });

    it('refuses every console route without a session, and participant routes need none', async () => {
      await ctx().importStudy(PAIR_STUDY);
      for (const [method, url] of ROUTES) {
        const res = await ctx().app.inject({ method, url, headers: { 'content-type': 'application/json' }, payload: method === 'POST' ? '{}' : undefined });
        expect([url, res.statusCode, json(res).error]).toEqual([url, 401, 'SIGN_IN_REQUIRED']);
      }
      expect((await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=anon')).statusCode).toBe(200);
    });

    it('signs in with an HttpOnly, SameSite=Strict cookie, and locks an address out of an account after 5 failed sign-ins', async () => {
      await addUser(ctx().storage, 'lead@lab.example');
      const signInWith = (password: string) => ctx().app.inject({ method: 'POST', url: '/console/api/sign-in', payload: { email: 'lead@lab.example', password } });
      const ok = await signInWith(PASSWORD);
      expect(ok.statusCode).toBe(200);
      const cookies = [ok.headers['set-cookie']].flat().map(String);
      expect(cookies[0]).toMatch(/^glimpse_console=[\w-]{43}; Max-Age=43200; Path=\/console; HttpOnly; SameSite=Strict$/);
      // The browser is known from now on (sign-in-lockout.test.ts): a cookie sent to the sign-in route only.
      expect(cookies[1]).toMatch(/^glimpse_browser=[\w-]{43}; Max-Age=31536000; Path=\/console\/api\/sign-in; HttpOnly; SameSite=Strict$/);
      expect(json(ok).csrfToken).toMatch(/^[\w-]{43}$/);
      for (let i = 0; i < 5; i++) expect(json(await signInWith('wrong password')).error).toBe('SIGN_IN_FAILED');
      // Locked: the right password gets the same answer as a wrong one, from this address only.
      const locked = await signInWith(PASSWORD);
      expect([locked.statusCode, json(locked)]).toEqual([401, json(await ctx().app.inject({ method: 'POST', url: '/console/api/sign-in', payload: { email: 'nobody@lab.example', password: PASSWORD } }))]);
      expect(json(locked).error).toBe('SIGN_IN_FAILED');
      const elsewhere = await ctx().app.inject({ method: 'POST', url: '/console/api/sign-in', remoteAddress: '203.0.113.9', payload: { email: 'lead@lab.example', password: PASSWORD } });
      expect(elsewhere.statusCode).toBe(200);
    });

    it('changes nothing without the session\'s CSRF token, nor after sign-out', async () => {
      await ctx().importStudy(PAIR_STUDY);
      await addUser(ctx().storage, 'lead@lab.example');
      const owner = await signIn(ctx().app, 'lead@lab.example');
      for (const headers of [{ 'x-csrf-token': 'forged' }, { 'x-csrf-token': '' }]) {
        const res = await owner.post('/console/api/jobs/fixture-pair/status', { status: 'closed', confirm: true }, headers);
        expect([res.statusCode, json(res).error]).toEqual([403, 'CSRF']);
      }
      const status = () => ctx().storage.db.selectFrom('jobs').select('status').where('id', '=', 'fixture-pair').executeTakeFirstOrThrow();
      expect(await status()).toEqual({ status: 'open' });
      expect((await owner.post('/console/api/sign-out')).statusCode).toBe(200);
      expect((await owner.post('/console/api/jobs/fixture-pair/status', { status: 'closed', confirm: true })).statusCode).toBe(401);
      expect(await status()).toEqual({ status: 'open' });
    });
  });

  describe('jobs, roles and controls', () => {
    it('shows a viewer its jobs only, without platform ids, and lets it neither withdraw nor pause', async () => {
      await ctx().importStudy(PAIR_STUDY);
      await ctx().importStudy(await writeStudy({ id: 'other', job: jobFields('pair_comparison'), playlists: [{ stimuli: [{ sourceA: 'red.png', sourceB: 'blue.png' }] }] }));
      await addUser(ctx().storage, 'lead@lab.example');
      await addUser(ctx().storage, 'viewer@lab.example', { jobId: 'fixture-pair', role: 'viewer' });
      const done = await takeTest(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=mturk&workerId=W42&assignmentId=A42', { complete: true });
      const owner = await signIn(ctx().app, 'lead@lab.example');
      const viewer = await signIn(ctx().app, 'viewer@lab.example');

      expect(json(await owner.get('/console/api/jobs')).map((j: { id: string }) => j.id)).toEqual(['fixture-pair', 'other']);
      const [job] = json(await viewer.get('/console/api/jobs'));
      expect(job).toMatchObject({ id: 'fixture-pair', role: 'viewer', status: 'open', sessions: { started: 1, completed: 1 } });
      expect(job.links.prolific).toBe('https://glimpse.example.org/pvid/fixture-pair?platform=prolific&PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}');
      expect((await viewer.get('/console/api/jobs/other')).statusCode).toBe(404);

      const asOwner = json(await owner.get('/console/api/jobs/fixture-pair/participants'));
      expect(asOwner.rows[0]).toMatchObject({ sessionId: done.sessionId, state: 'completed', answers: 2, ids: { workerId: 'W42', assignmentId: 'A42' } });
      const asViewer = json(await viewer.get('/console/api/jobs/fixture-pair/participants'));
      expect(asViewer.rows[0]).toMatchObject({ sessionId: done.sessionId, ids: null });
      expect(JSON.stringify(asViewer)).not.toContain('W42');
      expect(json(await viewer.get('/console/api/jobs/fixture-pair/participants?q=W42')).total).toBe(0);
      expect(json(await owner.get('/console/api/jobs/fixture-pair/participants?q=W42')).total).toBe(1);

      for (const [url, body] of [['/console/api/jobs/fixture-pair/withdraw', { sessionId: done.sessionId, confirm: true }], ['/console/api/jobs/fixture-pair/status', { status: 'paused', confirm: true }]] as const) {
        const res = await viewer.post(url, body);
        expect([res.statusCode, json(res).error]).toEqual([403, 'FORBIDDEN']);
      }
      expect((await viewer.get('/console/api/jobs/fixture-pair/export')).statusCode).toBe(403);
      // The owner withdraws, with the confirmation the body must carry.
      expect((await owner.post('/console/api/jobs/fixture-pair/withdraw', { sessionId: done.sessionId })).statusCode).toBe(400);
      expect(json(await owner.post('/console/api/jobs/fixture-pair/withdraw', { sessionId: done.sessionId, confirm: true })).deleted).toMatchObject({ sessions: 1, ratings: 2 });
    });

    it('pauses a job: new participants get STUDY_PAUSED, one in progress goes on; closed gives STUDY_CLOSED', async () => {
      await ctx().importStudy(PAIR_STUDY);
      await addUser(ctx().storage, 'lead@lab.example');
      const owner = await signIn(ctx().app, 'lead@lab.example');
      const inProgress = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=early'));
      expect(json(await owner.post('/console/api/jobs/fixture-pair/status', { status: 'paused', confirm: true }))).toEqual({ id: 'fixture-pair', status: 'paused' });
      const late = await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=late');
      expect([late.statusCode, json(late).error]).toEqual([403, 'STUDY_PAUSED']);
      const resumed = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=early'));
      expect(resumed.sessionToken).toBe(inProgress.sessionToken);
      expect(json(await owner.get('/console/api/jobs/fixture-pair')).stats.status).toBe('paused');
      await owner.post('/console/api/jobs/fixture-pair/status', { status: 'closed', confirm: true });
      expect(json(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=later')).error).toBe('STUDY_CLOSED');
    });
  });

  describe('data', () => {
    it('imports a study zip as a draft owned by its uploader; refuses an invalid one with JSON paths and stores nothing', async () => {
      await addUser(ctx().storage, 'lead@lab.example');
      const owner = await signIn(ctx().app, 'lead@lab.example');
      const upload = async (zip: Buffer, fields: Record<string, string> = {}) => {
        const { payload, contentType } = multipartBody(zip, fields);
        return ctx().app.inject({ method: 'POST', url: '/console/api/import', headers: { cookie: owner.cookie, 'x-csrf-token': owner.csrf, 'content-type': contentType }, payload });
      };
      const good = dirname(await writeStudy({ id: 'zipped', job: jobFields('pair_comparison'), playlists: [{ stimuli: [{ sourceA: 'red.png', sourceB: 'green.png' }] }] }));
      const res = await upload(await zipFolder(good));
      expect([res.statusCode, json(res)]).toEqual([200, expect.objectContaining({ jobId: 'zipped', status: 'created', mediaCopied: 2 })]);
      expect(json(await owner.get('/console/api/jobs/zipped')).stats.status).toBe('draft');
      // A draft is not over, it has not begun (issue 35): its link says so, not "closed".
      const draft = await getPlaylist(ctx().app, '/api/getrandomtasks/zipped');
      expect([draft.statusCode, json(draft).error, json(draft).message]).toEqual([403, 'STUDY_NOT_OPEN_YET', 'this study is not open yet: its researchers try it with a preview link from the console']);
      // The same study again is a re-import (unchanged), not a second job.
      expect(json(await upload(await zipFolder(good))).status).toBe('unchanged');

      const bad = dirname(await writeStudy({ id: 'broken', job: jobFields('triplet'), playlists: [{ stimuli: [{ sourceA: 'red.png' }] }] }));
      const refused = await upload(await zipFolder(bad));
      expect([refused.statusCode, json(refused).error]).toEqual([400, 'STUDY_INVALID']);
      expect(json(refused).details.map((d: { path: string }) => d.path)).toEqual(expect.arrayContaining(['$.playlists[0].stimuli[0].sourceB', '$.playlists[0].stimuli[0].sourceC']));
      // A name leaving the folder (zip tools refuse to write one: the bytes are patched in).
      const crafted = await zipFolder(good, [{ name: 'xx/xx/escaped.txt', data: 'x' }]);
      const slip = await upload(Buffer.from(crafted.toString('latin1').replaceAll('xx/xx/escaped.txt', '../../escaped.txt'), 'latin1'));
      expect([slip.statusCode, json(slip).error]).toEqual([400, 'BAD_ZIP']);
      expect((await ctx().storage.db.selectFrom('jobs').select('id').execute()).map((j) => j.id)).toEqual(['zipped']);
    });

    it('streams the exports the CLI writes, the decisions lists, and the report with its chart specifications', async () => {
      await ctx().importStudy(PAIR_STUDY);
      await addUser(ctx().storage, 'lead@lab.example');
      const owner = await signIn(ctx().app, 'lead@lab.example');
      for (let i = 0; i < 3; i++) await takeTest(ctx().app, '/api/getrandomtasks/fixture-pair', `platform=prolific&PROLIFIC_PID=P${i}&SESSION_ID=S${i}`, { complete: true, timing: i > 0 });
      const csv = await owner.get('/console/api/jobs/fixture-pair/export?table=ratings&format=csv');
      expect(csv.headers['content-disposition']).toBe('attachment; filename="fixture-pair-ratings.csv"');
      expect(csv.headers['x-total-rows']).toBe('6');
      expect(csv.body).toBe((await cli(['export', 'fixture-pair'])).out);
      expect((await owner.get('/console/api/jobs/fixture-pair/export?format=pairs')).body).toBe((await cli(['export', 'fixture-pair', '--format', 'pairs'])).out);
      // P0 posted without timing records: a technical fault, so quality control approves that session and excludes it
      // from the analysis (shownToEnd); no one is rejected.
      expect(json(await owner.get('/console/api/jobs/fixture-pair/decisions/prolific'))).toMatchObject({ approved: 3, rejected: 0 });
      const reject = (await owner.get('/console/api/jobs/fixture-pair/decisions/prolific/reject.csv')).body.split('\r\n');
      expect(reject).toEqual(['participant_id,submission_id,study_id,session_id,rejection_category,message', '']);
      expect((await owner.get('/console/api/jobs/fixture-pair/decisions/prolific/approve.csv')).body.split('\r\n').slice(1, 4).map((l) => l.split(',')[0])).toEqual(['P0', 'P1', 'P2']);
      const verdicts = (await owner.get('/console/api/jobs/fixture-pair/decisions/prolific/verdicts.csv')).body.split('\r\n');
      expect(verdicts[1]).toMatch(/^\d+,P0,approve,,exclude,A stimulus could not be shown in full \(media error or interrupted display\) \(2 of 2 answers not shown to the end: /);
      const html = await owner.get('/console/api/jobs/fixture-pair/report.html');
      expect(html.body).toContain('<title>Glimpse report — pair_comparison</title>');
      const report = json(await owner.get('/console/api/jobs/fixture-pair/report.json'));
      expect(report.report.family).toBe('paired');
      // The excluded session is left out unless the page asks to keep it, as the CLI's --include.
      expect(report.report.votes.observers).toBe(2);
      expect(json(await owner.get('/console/api/jobs/fixture-pair/report.json?include=excluded')).report.votes.observers).toBe(3);
      expect((await owner.get('/console/api/jobs/fixture-pair/report.json?include=everyone')).statusCode).toBe(400);
      // The participants table: both verdicts and the failed rules (the page says them in words).
      const participants = json(await owner.get('/console/api/jobs/fixture-pair/participants?status=all&page=1&pageSize=25'));
      const p0 = participants.rows.find((r: { ids: { prolificPid: string } }) => r.ids.prolificPid === 'P0');
      expect(p0).toMatchObject({ payment: 'approve', analysis: 'exclude', failed: [{ rule: 'shownToEnd' }] });
      expect(report.charts.length).toBeGreaterThan(0);
      expect(report.charts[0].spec.$schema).toContain('vega-lite');
    });
  });
});
