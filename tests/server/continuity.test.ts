import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { RESUME_TOKEN_HEADER } from '../../src/contract/playlist.js';
import { playlistSignature } from '../../src/server/playlist-links.js';
import { cli, useCliEnvironment } from '../../testkit/cli.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { contendAt, PG_POOL_CONNECTIONS } from '../../testkit/interleave.js';
import { countRows, getPlaylist, json, postJson, ratingBody, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { FIXTURE_MEDIA, PAIR_STUDY, writeStudy } from '../../testkit/studies.js';

/**
 * Participant continuity (issue 13) on both databases: one session per participant and job, whatever the tabs,
 * reloads and spellings of their id; resume for anonymous participants; who may choose a playlist.
 */

const PATH = '/api/getrandomtasks/fixture-pair';
const SECRET = 'test-link-secret';

describeEachDialect('participant continuity', (dialect) => {
  const ctx = useServer(dialect, { linkSecret: SECRET });
  useCliEnvironment(ctx);
  const playlist = async (query: string, headers: Record<string, string> = {}) => {
    const res = await ctx().app.inject({ method: 'GET', url: `${PATH}?${query}`, headers });
    return { status: res.statusCode, body: json(res) };
  };
  const complete = async (p: GenericPlaylist) => {
    for (const s of p.stimulis) await postJson(ctx().app, '/api/ratings/', ratingBody(p, s.stimuliId));
    expect((await ctx().app.inject(`/api/sessions/token/${p.sessionToken}`)).statusCode).toBe(200);
  };

  it('gives 20 concurrent playlist calls of one PROLIFIC_PID one and the same session', async () => {
    await ctx().importStudy(PAIR_STUDY);
    // PostgreSQL: the calls queue on the job's balancing lock (its job_loads row, glimpse_open_session), held
    // meanwhile by the test; released once 10 wait on it (the pool's connections: the other 10 queue for one), they
    // contend there together. SQLite: sent together, decided one after the other.
    const { results: answers, waiting } = await contendAt(ctx(), `select 1 from job_loads where job_id = 'fixture-pair' for update`, PG_POOL_CONNECTIONS, () =>
      Array.from({ length: 20 }, () => playlist('platform=prolific&PROLIFIC_PID=concurrent1')),
    );
    expect(waiting).toBe(dialect === 'postgres' ? PG_POOL_CONNECTIONS : null);
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]));
    expect(new Set(answers.map((a) => a.body.sessionToken)).size).toBe(1);
    expect(new Set(answers.map((a) => a.body.playlistId)).size).toBe(1);
    expect(answers.filter((a) => a.body.resumed)).toHaveLength(19);
    expect(await countRows(ctx().storage, 'sessions')).toBe(1);
  });

  it('resumes an unfinished session with the stimuli already answered, and never gives a second one', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const first = (await playlist('platform=prolific&PROLIFIC_PID=reloader')).body as GenericPlaylist;
    expect((await postJson(ctx().app, '/api/ratings/', ratingBody(first, first.stimulis[0].stimuliId))).statusCode).toBe(201);
    const again = (await playlist('platform=prolific&PROLIFIC_PID=reloader')).body as GenericPlaylist;
    expect(again).toMatchObject({ session_id: first.session_id, sessionToken: first.sessionToken, playlistId: first.playlistId, resumed: true, answered_stimuli: [first.stimulis[0].stimuliId] });
    expect(await countRows(ctx().storage, 'sessions')).toBe(1);
  });

  it('holds one identity across spellings and platform parameters, before and after completion', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const p = (await playlist('platform=prolific&PROLIFIC_PID=authA')).body as GenericPlaylist;
    // Trailing space, other case, the same id as an MTurk worker id or as a lab e-mail: the same person.
    for (const query of ['platform=prolific&PROLIFIC_PID=authA%20', 'platform=prolific&PROLIFIC_PID=autha', 'platform=mturk&workerId=AUTHA&assignmentId=X']) {
      expect((await playlist(query)).body.sessionToken).toBe(p.sessionToken);
    }
    await complete(p);
    for (const query of ['platform=prolific&PROLIFIC_PID=authA', 'platform=prolific&PROLIFIC_PID=authA%20', 'platform=prolific&PROLIFIC_PID=autha', 'platform=mturk&workerId=AUTHA']) {
      const again = await playlist(query);
      expect([again.status, again.body.error]).toEqual([403, 'ALREADY_COMPLETED']);
    }
    expect(await countRows(ctx().storage, 'sessions')).toBe(1);
  });

  it('takes a lab e-mail whatever its case and surrounding spaces, and refuses ids that are not ids', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const p = (await playlist('platform=nantes&email=Chloe.Dupre%40Univ-Nantes.fr')).body as GenericPlaylist;
    expect((await playlist('platform=nantes&email=%20chloe.dupre%40univ-nantes.fr%20')).body.sessionToken).toBe(p.sessionToken);
    for (const [query, field] of [
      ['platform=mturk&workerId=%3DHYPERLINK(%22http%3A%2F%2Fx%22)', 'workerId'],
      ['platform=prolific&PROLIFIC_PID=a%20b', 'PROLIFIC_PID'],
      ['platform=prolific&PROLIFIC_PID=x&SESSION_ID=%3Cscript%3E', 'SESSION_ID'],
      ['platform=nantes&email=not-an-address', 'email'],
      [`platform=prolific&PROLIFIC_PID=${'a'.repeat(129)}`, 'PROLIFIC_PID'],
    ]) {
      const res = await playlist(query!);
      expect([res.status, res.body.error, res.body.details[0].path]).toEqual([400, 'BAD_PLATFORM_ID', `querystring.${field}`]);
    }
    expect(await countRows(ctx().storage, 'sessions')).toBe(1);
  });

  it('resumes an anonymous participant by the token the page kept, and refuses a completed one', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const first = (await playlist('platform=prolific')).body as GenericPlaylist;
    const again = (await playlist('platform=prolific', { [RESUME_TOKEN_HEADER]: first.sessionToken! })).body as GenericPlaylist;
    expect([again.session_id, again.resumed]).toEqual([first.session_id, true]);
    // A token of another job, or an unknown one, resumes nothing: a new session.
    const stranger = (await playlist('platform=prolific', { [RESUME_TOKEN_HEADER]: 'x'.repeat(43) })).body as GenericPlaylist;
    expect(stranger.session_id).not.toBe(first.session_id);
    await complete(first);
    const done = await playlist('platform=prolific', { [RESUME_TOKEN_HEADER]: first.sessionToken! });
    expect([done.status, done.body.error]).toEqual([403, 'ALREADY_COMPLETED']);
  });

  // Issue 35: a browser shared by several people (a lab PC) keeps the token of whoever used it last.
  for (const [platform, idOf] of [
    ['prolific', (who: string) => `PROLIFIC_PID=${who}&STUDY_ID=S1&SESSION_ID=X${who}`],
    ['mturk', (who: string) => `workerId=${who}&assignmentId=A${who}&hitId=H1`],
    ['nantes', (who: string) => `email=${who}%40lab.example`],
  ] as const) {
    it(`on a shared computer (${platform}) the next participant's own id decides: the token left by another is ignored`, async () => {
      await ctx().importStudy(PAIR_STUDY);
      const first = (await playlist(`platform=${platform}&${idOf('first')}`)).body as GenericPlaylist;
      const kept = { [RESUME_TOKEN_HEADER]: first.sessionToken! };
      // While the first is halfway, the next person does not take over their session...
      const next = await playlist(`platform=${platform}&${idOf('next')}`, kept);
      expect([next.status, next.body.resumed]).toEqual([200, false]);
      expect(next.body.session_id).not.toBe(first.session_id);
      await complete(first);
      // ... and once it is completed, is neither refused as "already completed" at the visit nor at the start.
      const visit = await ctx().app.inject({ method: 'POST', url: `/api/visits/fixture-pair?platform=${platform}&${idOf('third')}`, headers: kept });
      expect([visit.statusCode, json(visit).resumable]).toEqual([201, false]);
      const third = await playlist(`platform=${platform}&${idOf('third')}`, kept);
      expect([third.status, third.body.resumed]).toEqual([200, false]);
      expect(new Set([first.session_id, next.body.session_id, third.body.session_id]).size).toBe(3);
      // The first person's own id is still refused, and so is a link without an id in that browser (the token applies).
      for (const query of [`platform=${platform}&${idOf('first')}`, `platform=${platform}`]) {
        const again = await playlist(query, kept);
        expect([again.status, again.body.error]).toEqual([403, 'ALREADY_COMPLETED']);
      }
      const ids = await ctx().storage.db.selectFrom('session_identities').select(['session_id', 'participant_key']).orderBy('session_id').execute();
      expect(ids.map((i) => i.participant_key)).toEqual(['first', 'next', 'third'].map((who) => `${platform}:${platform === 'nantes' ? `${who}@lab.example` : who}`));
    });
  }

  it('tells the next participant on a shared computer that a paused study is paused, not that they completed it', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const first = (await playlist('platform=prolific&PROLIFIC_PID=before')).body as GenericPlaylist;
    await complete(first);
    await ctx().storage.db.updateTable('jobs').set({ status: 'paused' }).where('id', '=', 'fixture-pair').execute();
    const kept = { [RESUME_TOKEN_HEADER]: first.sessionToken! };
    const visit = await ctx().app.inject({ method: 'POST', url: '/api/visits/fixture-pair?platform=prolific&PROLIFIC_PID=after', headers: kept });
    const start = await playlist('platform=prolific&PROLIFIC_PID=after', kept);
    for (const res of [{ status: visit.statusCode, body: json(visit) }, start]) {
      expect([res.status, res.body.error, res.body.message]).toEqual([403, 'STUDY_PAUSED', 'this study is paused: it takes no new participant for now']);
    }
    expect(await countRows(ctx().storage, 'sessions')).toBe(1);
  });

  it('keeps repeat blocking after a withdrawal, under any platform parameter', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const p = (await playlist('platform=mturk&workerId=W77&assignmentId=A1')).body as GenericPlaylist;
    await complete(p);
    expect((await cli(['withdraw', '--worker-id', 'W77'])).code).toBe(0);
    for (const query of ['platform=mturk&workerId=w77', 'platform=prolific&PROLIFIC_PID=W77%20']) {
      expect((await playlist(query)).body.error).toBe('ALREADY_COMPLETED');
    }
    expect(await countRows(ctx().storage, 'sessions')).toBe(0);
  });

  it('lets no outsider choose a playlist: playlist_id needs a signed link or a job that allows the choice', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const playlists = await ctx().storage.db.selectFrom('playlists').select('id').orderBy('id').execute();
    const third = playlists[1]!.id;
    for (let i = 0; i < 5; i++) {
      const pinned = await playlist(`platform=prolific&PROLIFIC_PID=pin${i}&playlist_id=${third}`);
      expect([pinned.status, pinned.body.error]).toEqual([403, 'PLAYLIST_CHOICE_NOT_ALLOWED']);
    }
    const forged = await playlist(`platform=prolific&PROLIFIC_PID=forger&playlist_id=${third}&sig=${playlistSignature('other-secret', 'fixture-pair', third)}`);
    expect(forged.status).toBe(403);
    expect(await countRows(ctx().storage, 'sessions')).toBe(0);
    const signed = await playlist(`platform=prolific&PROLIFIC_PID=lab1&playlist_id=${third}&sig=${playlistSignature(SECRET, 'fixture-pair', third)}`);
    expect([signed.status, signed.body.playlistId]).toEqual([200, third]);
    // A job whose study allows the choice honours any playlist_id.
    const study = JSON.parse(readFileSync(PAIR_STUDY, 'utf8'));
    await ctx().importStudy(await writeStudy({ ...study, media: FIXTURE_MEDIA, job: { ...study.job, allowPlaylistChoice: true } }), { replace: true });
    expect((await playlist(`platform=prolific&PROLIFIC_PID=lab2&playlist_id=${third}`)).body.playlistId).toBe(third);
  });

  it('prints signed playlist links with `cli link`', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const playlists = await ctx().storage.db.selectFrom('playlists').select('id').orderBy('id').execute();
    process.env.LINK_SECRET = SECRET;
    try {
      const res = await cli(['link', 'fixture-pair']);
      expect(res.code).toBe(0);
      const links = res.out.trim().split('\n');
      expect(links).toEqual(playlists.map((p) => expect.stringContaining(`/pvid/fixture-pair?playlist_id=${p.id}&sig=${playlistSignature(SECRET, 'fixture-pair', p.id)}`)));
      const url = new URL(links[0]!.split(' ').pop()!);
      expect((await getPlaylist(ctx().app, PATH, `${url.searchParams}&platform=prolific&PROLIFIC_PID=via-link`)).statusCode).toBe(200);
    } finally {
      delete process.env.LINK_SECRET;
    }
    expect((await cli(['link', 'fixture-pair'])).err).toContain('LINK_SECRET');
  });
});
