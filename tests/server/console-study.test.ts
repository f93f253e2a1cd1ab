import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer, startupLines } from '../../src/server/start.js';
import { cli, useCliEnvironment } from '../../testkit/cli.js';
import { addUser, multipartBody, signIn, zipFolder, type ConsoleClient } from '../../testkit/console.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { BCHECK, takeTest } from '../../testkit/participants.js';
import { getPlaylist, json, postJson, ratingBody, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { jobFields, PAIR_STUDY, writeStudy } from '../../testkit/studies.js';

/**
 * The console from draft to payment (issue 20): a study's links and settings, previews that count nowhere, where
 * participants left (abandoned sessions only, phases as codes the page words), participant search, import errors
 * without server paths, the downloads that fit the protocol, and what judging again changed. Both databases.
 */

describeEachDialect('console: a study from draft to payment', (dialect) => {
  const ctx = useServer(dialect);
  useCliEnvironment(ctx);

  const owner = async (): Promise<ConsoleClient> => {
    await addUser(ctx().storage, 'lead@lab.example');
    return signIn(ctx().app, 'lead@lab.example');
  };
  const setStatus = (client: ConsoleClient, status: 'open' | 'paused' | 'closed') => client.post('/console/api/jobs/fixture-pair/status', { status, confirm: true });

  describe('previews', () => {
    it('ends a preview session with its link: once the link expires, its answers get 403 PREVIEW_EXPIRED and nothing is stored (issue 34)', async () => {
      await ctx().importStudy(PAIR_STUDY);
      const lead = await owner();
      const { links } = json<{ links: { prolific: string } }>(await lead.post('/console/api/jobs/fixture-pair/preview'));
      const playlist = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', new URL(links.prolific).search.slice(1)));
      const [first, second] = playlist.stimulis;
      expect((await postJson(ctx().app, '/api/ratings/', ratingBody(playlist, first!.stimuliId))).statusCode).toBe(201);
      const link = await ctx().storage.db.selectFrom('preview_links').select('expires_at').executeTakeFirstOrThrow();
      expect(await ctx().storage.db.selectFrom('sessions').select('preview_until').where('id', '=', playlist.session_id!).executeTakeFirst()).toEqual({ preview_until: link.expires_at });
      // The link expires (as 24 hours later).
      await ctx().storage.db.updateTable('preview_links').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).execute();
      await ctx().storage.db.updateTable('sessions').set({ preview_until: new Date(Date.now() - 1000).toISOString() }).where('preview', '=', 1).execute();
      const late = await postJson(ctx().app, '/api/ratings/', ratingBody(playlist, second!.stimuliId));
      expect([late.statusCode, json(late)]).toEqual([403, { error: 'PREVIEW_EXPIRED', message: 'this preview session ended with its link: ask the console for a new one' }]);
      expect(await ctx().storage.db.selectFrom('ratings').select('stimulus_id').execute()).toEqual([{ stimulus_id: first!.stimuliId }]);
    });

    it('runs a draft as a participant in a marked session that counts in no balance, statistic, screening nor export unless asked', async () => {
      await ctx().importStudy(PAIR_STUDY);
      const lead = await owner();
      await ctx().storage.db.updateTable('jobs').set({ status: 'draft' }).where('id', '=', 'fixture-pair').execute();
      expect(json(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=early')).error).toBe('STUDY_NOT_OPEN_YET');

      const { links } = json<{ links: { prolific: string; lab: string } }>(await lead.post('/console/api/jobs/fixture-pair/preview'));
      expect(links.lab).toMatch(/^https:\/\/glimpse\.example\.org\/pvid\/fixture-pair\?platform=nantes&preview=[\w-]{43}$/);
      const query = new URL(links.prolific).search.slice(1);
      // The preview goes through the draft; its platform ids, if any, are not kept (it blocks no one).
      const preview = await takeTest(ctx().app, '/api/getrandomtasks/fixture-pair', `${query}&PROLIFIC_PID=RESEARCHER`, { complete: true, timing: true });
      const stored = await ctx().storage.db.selectFrom('sessions').select(['preview', 'playlist_id']).where('id', '=', preview.sessionId).executeTakeFirstOrThrow();
      expect(stored.preview).toBe(1);
      expect(await ctx().storage.db.selectFrom('session_participants').select('session_id').execute()).toEqual([]);
      // A forged or unknown token opens nothing.
      const forged = await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', `platform=prolific&preview=${'x'.repeat(43)}`);
      expect([forged.statusCode, json(forged).error]).toEqual([403, 'PREVIEW_EXPIRED']);

      // Opened: the first participant gets the playlist the preview took (it took no place), and the statistics
      // count only them; the participants table shows the preview, marked.
      await setStatus(lead, 'open');
      const real = await takeTest(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=P1&SESSION_ID=S1', { complete: true, timing: true });
      expect(real.playlist.playlistId).toBe(stored.playlist_id);
      const detail = json(await lead.get('/console/api/jobs/fixture-pair'));
      expect(detail.stats.sessions).toMatchObject({ started: 1, completed: 1 });
      expect(json(await lead.get('/console/api/jobs')).find((j: { id: string }) => j.id === 'fixture-pair').sessions.started).toBe(1);
      const rows = json(await lead.get('/console/api/jobs/fixture-pair/participants')).rows as Array<{ sessionId: number; preview: boolean }>;
      expect(rows.map((r) => [r.sessionId, r.preview])).toEqual([
        [real.sessionId, false],
        [preview.sessionId, true],
      ]);

      // Screening and decisions judge the participant only; exports leave the preview out unless asked.
      expect(json(await lead.post('/console/api/jobs/fixture-pair/screen'))).toMatchObject({ sessions: 1 });
      expect(json(await lead.get('/console/api/jobs/fixture-pair/decisions/prolific'))).toMatchObject({ approved: 1, rejected: 0 });
      const sessionsIn = (csv: string) => {
        const [header, ...lines] = csv.trim().split('\r\n');
        const at = header!.split(',').indexOf('session_id');
        return [...new Set(lines.map((l) => Number(l.split(',')[at])))];
      };
      expect(sessionsIn((await lead.get('/console/api/jobs/fixture-pair/export?table=ratings&format=csv')).body)).toEqual([real.sessionId]);
      expect(sessionsIn((await lead.get('/console/api/jobs/fixture-pair/export?table=ratings&format=csv&preview=1')).body).sort()).toEqual([preview.sessionId, real.sessionId].sort());
      expect(sessionsIn((await cli(['export', 'fixture-pair'])).out)).toEqual([real.sessionId]);
      const withPreview = (await cli(['export', 'fixture-pair', '--include-preview'])).out.trim().split('\r\n');
      const column = withPreview[0]!.split(',').indexOf('session_preview');
      expect(withPreview.slice(1).map((l) => l.split(',')[column]).sort()).toEqual(['0', '0', '1', '1']);
    });
  });

  describe('the study page', () => {
    it('gives the links, completion URL and settings, and the downloads that fit the protocol (others refused)', async () => {
      await ctx().importStudy(PAIR_STUDY);
      const lead = await owner();
      const detail = json(await lead.get('/console/api/jobs/fixture-pair'));
      expect(detail.links.prolific).toBe('https://glimpse.example.org/pvid/fixture-pair?platform=prolific&PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}');
      expect(detail.links.lab).toBe('https://glimpse.example.org/pvid/fixture-pair?platform=nantes&email=');
      expect(detail.completionUrl).toBeNull();
      expect(detail.settings).toMatchObject({ category_id: 1, targetScreenSizeHeight: 600, requestFullScreen: 0 });
      expect(detail.settings.welcomeMsg).toBeUndefined();
      expect(detail.downloads).toEqual(['ratings.csv', 'ratings.jsonl', 'sessionlogs.jsonl', 'presentations.csv', 'pairs.csv']);
      const p910 = await lead.get('/console/api/jobs/fixture-pair/export?format=p910');
      expect([p910.statusCode, json(p910).error, json(p910).message]).toEqual([409, 'FORMAT_NOT_FOR_JOB', 'format p910 is for rating jobs; job fixture-pair is a pair_comparison job (paired)']);
    });

    it('counts where abandoned sessions left, by phase code and stimulus; sessions in progress are not counted', async () => {
      await ctx().importStudy(PAIR_STUDY);
      const lead = await owner();
      const left = await takeTest(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=LEFT');
      const running = await takeTest(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=RUNNING');
      // Past the 60-minute lease the first is abandoned; a third left at the instructions, with no answer.
      const bcheck = json<{ id: number }>(await postJson(ctx().app, '/api/bchecks/', BCHECK)).id;
      const early = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', `platform=prolific&PROLIFIC_PID=EARLY&bcheckId=${bcheck}`));
      await postJson(ctx().app, '/api/sessionlogs/', { sessionToken: early.sessionToken, logStates: [{ state: 'Instruction', status: 'instructions', time: 1 }], logMouseMovement: [], logMouseClick: [], logScroll: [], logKeyboard: [], logFocus: [], logDomSize: [] });
      const old = new Date(Date.now() - 2 * 3600_000).toISOString();
      await ctx().storage.db.updateTable('sessions').set({ created_at: old }).where('id', 'in', [left.sessionId, early.session_id!]).execute();
      const { stats } = json(await lead.get('/console/api/jobs/fixture-pair'));
      expect(stats.dropOut).toEqual(expect.arrayContaining([{ phase: 'stimulus', stimulus: 2, sessions: 1 }, { phase: 'instructions', sessions: 1 }]));
      expect(stats.dropOut).toHaveLength(2);
      expect(stats.sessions.running).toBe(1);
      expect(running.sessionId).toBeGreaterThan(0);
    });

    it('finds participants by part of a platform id or e-mail, in any case', async () => {
      await ctx().importStudy(PAIR_STUDY);
      const lead = await owner();
      await takeTest(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=mturk&workerId=A1B2WorkerX&assignmentId=ASG9');
      await takeTest(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=nantes&email=Marie.Curie@Lab.example');
      const found = async (q: string) =>
        (json(await lead.get(`/console/api/jobs/fixture-pair/participants?q=${encodeURIComponent(q)}`)).rows as Array<{ ids: { workerId: string | null; email: string | null } }>).map((r) => r.ids.workerId ?? r.ids.email);
      expect(await found('workerx')).toEqual(['A1B2WorkerX']);
      expect(await found('b2w')).toEqual(['A1B2WorkerX']);
      expect(await found('marie.CURIE')).toEqual(['Marie.Curie@Lab.example']);
      expect(await found('asg')).toEqual(['A1B2WorkerX']);
      // LIKE's wildcards are only text here.
      expect(await found('%')).toEqual([]);
      expect(await found('_')).toEqual([]);
    });
  });

  describe('first run', () => {
    it('`cli import` prints each platform\'s link, on PUBLIC_URL, else on the server\'s port', async () => {
      const withPublicUrl = await cli(['import', PAIR_STUDY]);
      expect(withPublicUrl.out).toContain('  Prolific: https://glimpse.example.org/pvid/fixture-pair?platform=prolific&PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}\n');
      expect(withPublicUrl.out).toContain('  MTurk:    https://glimpse.example.org/pvid/fixture-pair?platform=mturk\n');
      expect(withPublicUrl.out).toContain('  lab (French): https://glimpse.example.org/pvid/fixture-pair?platform=nantes&email=\n');
      delete process.env.PUBLIC_URL;
      process.env.HOST = '0.0.0.0';
      process.env.PORT = '9123';
      expect((await cli(['import', PAIR_STUDY])).out).toContain('participant link: http://127.0.0.1:9123/pvid/fixture-pair\n');
    });

    it('`npm start` prints the console, how to make its first account, and a lab (French) link', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'glimpse-start-'));
      const server = await startServer({ port: 0, host: '127.0.0.1', databaseUrl: join(dir, 'start.db'), mediaDir: join(dir, 'media'), webDir: join(dir, 'web'), studies: [PAIR_STUDY] });
      try {
        const base = server.url;
        expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        const lines = await startupLines(server, null);
        // The lab link carries an e-mail: without it the lab flow skips the consent form (SPEC §4); the lab demo
        // study is preferred when imported (tests/e2e/lab-demo.spec.ts opens its link up to the form).
        expect(lines).toEqual(expect.arrayContaining([`Researcher console: ${base}/console`, '    npm run cli -- user add you@example.org']));
        const lab = lines.indexOf("Lab participant (French wording and consent form; each participant's own e-mail goes in email=):");
        expect(lines[lab + 1]).toBe(`  ${base}/pvid/fixture-pair?platform=nantes&email=participant@lab.example`);
        expect(lines.some((l) => l.endsWith(`${base}/pvid/fixture-pair`))).toBe(true);
        await addUser(server.storage, 'lead@lab.example');
        const afterAccount = await startupLines(server, 'https://studies.example.org/');
        expect(afterAccount).toContain('Researcher console: https://studies.example.org/console');
        expect(afterAccount.join('\n')).not.toContain('user add');
      } finally {
        await server.close();
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe('import and judging again', () => {
    it('shows what is wrong in a study zip by the names inside it, never a server path', async () => {
      const lead = await owner();
      const folder = dirname(await writeStudy({ id: 'zipped', job: jobFields('pair_comparison'), playlists: [{ stimuli: [{ sourceA: 'red.png', sourceB: 'missing.png' }] }] }));
      const { payload, contentType } = multipartBody(await zipFolder(folder));
      const res = await ctx().app.inject({ method: 'POST', url: '/console/api/import', headers: { cookie: lead.cookie, 'x-csrf-token': lead.csrf, 'content-type': contentType }, payload });
      expect([res.statusCode, json(res).error]).toEqual([400, 'STUDY_INVALID']);
      const details = json(res).details as Array<{ path: string; message: string }>;
      expect(details.find((d) => d.path === '$.playlists[0].stimuli[0].sourceB')?.message).toMatch(/missing\.png/);
      expect(res.body).not.toMatch(/\/tmp\/|glimpse-upload|\\\\/);
    });

    it('says what judging again changed: first judgements, unchanged verdicts and each change', async () => {
      await ctx().importStudy(PAIR_STUDY);
      const lead = await owner();
      const first = await takeTest(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=P1&SESSION_ID=S1', { complete: true, timing: true });
      // Judged when it completed: judging again changes nothing.
      expect(json(await lead.post('/console/api/jobs/fixture-pair/screen'))).toEqual({ sessions: 1, accepted: 1, rejected: 0, included: 1, newlyJudged: 0, unchanged: 1, changed: [] });
      // A second participant's session has no verdict yet (stored before judging on completion), and the researcher
      // asks for answers of at least 10 s (the test envelope answers after 2.5 s): both are now too fast.
      const second = await takeTest(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=P2&SESSION_ID=S2', { complete: true, timing: true });
      await ctx().storage.db.deleteFrom('session_verdicts').where('session_id', '=', second.sessionId).execute();
      await ctx().storage.db.updateTable('jobs').set({ quality: JSON.stringify({ rules: { minTrialMs: 10_000 } }) }).where('id', '=', 'fixture-pair').execute();
      expect(json(await lead.post('/console/api/jobs/fixture-pair/screen'))).toEqual({
        sessions: 2,
        accepted: 0,
        rejected: 2,
        included: 0,
        newlyJudged: 1,
        unchanged: 0,
        changed: [{ sessionId: first.sessionId, before: { payment: 'approve', analysis: 'include' }, after: { payment: 'reject', analysis: 'exclude' } }],
      });
      expect(second.sessionId).toBeGreaterThan(first.sessionId);
      expect(json(await lead.post('/console/api/jobs/fixture-pair/screen'))).toMatchObject({ newlyJudged: 0, unchanged: 2, changed: [] });
    });
  });
});
