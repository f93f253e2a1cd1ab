import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';
import { completeSession } from '../../src/server/storage/sessions.js';
import { PROTOCOL_NAMES, PROTOCOLS } from '../../src/protocols/registry.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { contendAt, PG_POOL_CONNECTIONS } from '../../testkit/interleave.js';
import { countRows, getPlaylist, json, postJson, ratingBody, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { FIXTURE_MEDIA, PAIR_STUDY, studyOf, writeStudy } from '../../testkit/studies.js';

describeEachDialect('playlist assignment', (dialect) => {
  const ctx = useServer(dialect);

  it('serves the job fields with both background spellings', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const res = await ctx().app.inject('/api/jobs/fixture-pair');
    expect(res.statusCode).toBe(200);
    const job = json(res);
    expect(job).toMatchObject({ id: 'fixture-pair', subjectiveProtocol: 'pair_comparison', category_id: 1, question: 'Which image has the better quality?' });
    expect(job.backgroundColor).toBe('#808080');
    expect(job.background_color).toBe('#808080');
  });

  it('answers 404 for an unknown job and 400 for a malformed id', async () => {
    expect(json(await ctx().app.inject('/api/jobs/nope'))).toMatchObject({ error: 'NOT_FOUND' });
    expect((await ctx().app.inject('/api/jobs/nope')).statusCode).toBe(404);
    expect((await ctx().app.inject('/api/getrandomtasks/nope')).statusCode).toBe(404);
    const bad = await ctx().app.inject('/api/jobs/a%20b');
    expect(bad.statusCode).toBe(400);
    expect(json(bad).error).toBe('VALIDATION');
  });

  it('answers a pair playlist with media names, a session and a 256-bit token', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const res = await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific');
    expect(res.statusCode).toBe(200);
    const p = json<GenericPlaylist>(res);
    expect(Object.keys(p).sort()).toEqual(['answered_stimuli', 'jobId', 'mediaRessources', 'mediaSizes', 'playlistId', 'resumed', 'sessionToken', 'session_id', 'stimulis', 'stimulis_training', 'type']);
    expect([p.resumed, p.answered_stimuli]).toEqual([false, []]);
    expect(p.jobId).toBe('fixture-pair');
    expect(p.type).toBe('pair_comparison');
    expect(p.stimulis).toEqual([
      { stimuliId: expect.any(Number), sourceA: 'fixture-pair/red.png', sourceB: 'fixture-pair/green.png', reversed: false },
      { stimuliId: expect.any(Number), sourceA: 'fixture-pair/blue.png', sourceB: 'fixture-pair/yellow.png', reversed: true },
    ]);
    expect(p.stimulis_training).toEqual([]);
    expect(p.mediaRessources).toEqual(['fixture-pair/red.png', 'fixture-pair/green.png', 'fixture-pair/blue.png', 'fixture-pair/yellow.png']);
    // Each media's size in bytes, as imported: the loading screen knows its total from the first byte.
    expect(p.mediaSizes).toEqual(['red.png', 'green.png', 'blue.png', 'yellow.png'].map((f) => statSync(join(FIXTURE_MEDIA, f)).size));
    expect(Buffer.from(p.sessionToken!, 'base64url').length).toBeGreaterThanOrEqual(16);
    const stored = await ctx().storage.db.selectFrom('sessions').selectAll().where('id', '=', p.session_id!).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ job_id: 'fixture-pair', playlist_id: p.playlistId, token: p.sessionToken, platform: 'prolific', completed_at: null });
  });

  it.each(PROTOCOL_NAMES.map((p) => [p]))('serves the %s shape on its own path only', async (protocol) => {
    const study = studyOf(protocol, { playlists: 1, perPlaylist: 2, training: protocol === 'piiface' || protocol === 'double_stimulus_impairment_scale' ? 1 : 0 });
    await ctx().importStudy(await writeStudy(study));
    const path = PROTOCOLS[protocol].playlistPath;
    const res = await getPlaylist(ctx().app, `/api/${path}/${study.id}`);
    expect(res.statusCode).toBe(200);
    const p = json(res);
    expect(p.type).toBe(protocol);
    const first = p.stimulis[0];
    if (protocol === 'bubble') {
      expect(first).toEqual({
        stimuli_id: expect.any(Number),
        sourceA: { stimuli_id: first.stimuli_id, source: `${study.id}/red.png`, height: 18, width: 32, blur: 4, radius: 6, golden: false },
        sourceB: { stimuli_id: first.stimuli_id, source: `${study.id}/green.png`, height: 18, width: 32, blur: 4, radius: 6, golden: true },
      });
    } else if (protocol === 'piiface') {
      expect(first).toEqual({ stimuli_id: expect.any(Number), type: 'emotion/set1/img0/3', source: `${study.id}/red.png` });
      expect(p.stimulis_training).toHaveLength(1);
      expect(p.stimulis_training[0].stimuli_id).not.toBe(first.stimuli_id);
    } else if (protocol === 'absolute_category_rating' || protocol === 'acceptability_annoyance') {
      expect(first).toEqual({ stimuliId: expect.any(Number), source: `${study.id}/red.png`, reversed: false });
    } else if (protocol === 'maximum_likelihood_difference_scaling') {
      expect(Object.keys(first).sort()).toEqual(['reversed', 'sourceA', 'sourceB', 'sourceC', 'sourceD', 'stimuliId']);
    } else if (protocol === 'triplet') {
      expect(Object.keys(first).sort()).toEqual(['reversed', 'sourceA', 'sourceB', 'sourceC', 'stimuliId']);
    }
    // Another protocol's path does not serve this job.
    const other = Object.values(PROTOCOLS).map((p) => p.playlistPath).find((x) => x !== path)!;
    const wrong = await getPlaylist(ctx().app, `/api/${other}/${study.id}`);
    expect(wrong.statusCode).toBe(404);
    expect(json(wrong).message).toContain(`/api/${path}/${study.id}`);
  });

  it('balances playlists by started-and-completed sessions', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) ids.push(json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair')).playlistId);
    const [a, b] = [...new Set(ids)].sort();
    expect(ids.filter((x) => x === a)).toHaveLength(3);
    expect(ids.filter((x) => x === b)).toHaveLength(3);
  });

  it('stops counting a session abandoned past the lease', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const next = async () => json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair'));
    const first = await next();
    const second = await next();
    expect(second.playlistId).not.toBe(first.playlistId);
    // The second completes; two hours later the first, never completed, is abandoned: its playlist takes the next one.
    await completeSession(ctx().storage, second.session_id!);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 2 * 3600_000);
      const third = await next();
      expect(third.playlistId).toBe(first.playlistId);
      // A completed session counts whatever its age: now first's playlist has 1 (third), second's 1, then tie.
      const fourth = await next();
      // Tie on load (1 each): the playlist with fewer sessions ever (second's: 1 vs 2) wins.
      expect(fourth.playlistId).toBe(second.playlistId);
    } finally {
      vi.useRealTimers();
    }
  });

  it('takes an expired session off the running count at the first arrival 5 s or more after the last sweep', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const next = async () => json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair'));
    const running = async () =>
      (await ctx().storage.db.selectFrom('playlist_loads').select('running').where('job_id', '=', 'fixture-pair').execute()).reduce((n, p) => n + Number(p.running), 0);
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(start);
      await next(); // sweeps: the job's lease is swept up to an hour ago
      // A session that began an hour ago less 1 s: its lease ends 1 s from now.
      const late = await next();
      await ctx().storage.db.updateTable('sessions').set({ created_at: new Date(start - 3600_000 + 1000).toISOString() }).where('id', '=', late.session_id!).execute();
      vi.setSystemTime(start + 3000); // its lease ended 2 s ago, 3 s after the last sweep: not swept yet
      await next();
      expect(await running()).toBe(3);
      vi.setSystemTime(start + 5000); // 5 s after the last sweep: swept
      await next();
      expect(await running()).toBe(3); // 4 sessions, the expired one no longer running
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps the balance under concurrent calls', async () => {
    await ctx().importStudy(PAIR_STUDY);
    // PostgreSQL: the calls queue on the job's balancing lock (its job_loads row, glimpse_open_session), held
    // meanwhile by the test; released once 10 wait on it (the pool's connections: the other 10 queue for one), they
    // contend there together. SQLite: sent together, decided one after the other.
    const { results: answers, waiting } = await contendAt(ctx(), `select 1 from job_loads where job_id = 'fixture-pair' for update`, PG_POOL_CONNECTIONS, () =>
      Array.from({ length: 20 }, () => getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair')),
    );
    expect(waiting).toBe(dialect === 'postgres' ? PG_POOL_CONNECTIONS : null);
    expect(answers.every((r) => r.statusCode === 200)).toBe(true);
    const ids = answers.map((r) => json<GenericPlaylist>(r).playlistId);
    const counts = [...new Set(ids)].map((id) => ids.filter((x) => x === id).length);
    expect(counts).toEqual([10, 10]);
    const tokens = new Set(answers.map((r) => json<GenericPlaylist>(r).sessionToken));
    expect(tokens.size).toBe(20);
  });

  it('honours playlist_id where the job allows the choice, and refuses one of another job', async () => {
    const study = JSON.parse(readFileSync(PAIR_STUDY, 'utf8'));
    await ctx().importStudy(await writeStudy({ ...study, media: FIXTURE_MEDIA, job: { ...study.job, allowPlaylistChoice: true } }));
    const playlists = await ctx().storage.db.selectFrom('playlists').select('id').orderBy('id').execute();
    const chosen = playlists[1].id;
    for (let i = 0; i < 3; i++) {
      expect(json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', `playlist_id=${chosen}`)).playlistId).toBe(chosen);
    }
    const res = await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'playlist_id=999999');
    expect(res.statusCode).toBe(404);
    const bad = await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'playlist_id=abc');
    expect(bad.statusCode).toBe(400);
    expect(json(bad).details[0].path).toBe('querystring.playlist_id');
    expect(await countRows(ctx().storage, 'sessions')).toBe(3);
  });

  it('stores the platform identity apart from the session', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const bcheck = json(await postJson(ctx().app, '/api/bchecks/', { b_name: 'Chrome', b_version: '140', b_os: 'Linux', screen_size: '1920x1080' }));
    const mturk = json(
      await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', `platform=mturk&workerId=W1&assignmentId=A1&hitId=H1&turkSubmitTo=https%3A%2F%2Fworkersandbox.mturk.com&bcheckId=${bcheck.id}&vl=1&phone=0`),
    );
    const prolific = json(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=P1&STUDY_ID=S1&SESSION_ID=X1'));
    const lab = json(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=nantes&email=lab%40example.fr'));
    const identity = (id: number) => ctx().storage.db.selectFrom('session_identities').selectAll().where('session_id', '=', id).executeTakeFirstOrThrow();
    expect(await identity(mturk.session_id)).toMatchObject({ participant_key: 'mturk:W1', worker_id: 'W1', assignment_id: 'A1', hit_id: 'H1', turk_submit_to: 'https://workersandbox.mturk.com' });
    expect(await identity(prolific.session_id)).toMatchObject({ participant_key: 'prolific:P1', prolific_pid: 'P1', study_id: 'S1', prolific_session_id: 'X1' });
    expect(await identity(lab.session_id)).toMatchObject({ participant_key: 'nantes:lab@example.fr', email: 'lab@example.fr' });
    const session = await ctx().storage.db.selectFrom('sessions').selectAll().where('id', '=', mturk.session_id).executeTakeFirstOrThrow();
    expect(session).toMatchObject({ platform: 'mturk', bcheck_id: bcheck.id });
    expect(session).not.toHaveProperty('worker_id');
  });

  it('refuses an unknown bcheckId and a repeated query parameter', async () => {
    await ctx().importStudy(PAIR_STUDY);
    expect((await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'bcheckId=424242')).statusCode).toBe(404);
    const repeated = await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'workerId=a&workerId=b');
    expect(repeated.statusCode).toBe(400);
    expect(await countRows(ctx().storage, 'sessions')).toBe(0);
  });

  it('gives an MTurk preview the playlist without a session', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const res = await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=mturk&assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=H1');
    expect(res.statusCode).toBe(200);
    const p = json<GenericPlaylist>(res);
    expect(p.session_id).toBeNull();
    expect(p.sessionToken).toBeNull();
    expect(p.stimulis).toHaveLength(2);
    expect(await countRows(ctx().storage, 'sessions')).toBe(0);
  });

  it('answers 403 ALREADY_COMPLETED to a participant who completed the job, on any playlist', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const query = 'platform=prolific&PROLIFIC_PID=repeat-me';
    const p = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', query));
    // Not completed yet: a reload gets the same session back.
    expect(json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', query)).sessionToken).toBe(p.sessionToken);
    for (const s of p.stimulis) expect((await postJson(ctx().app, '/api/ratings/', ratingBody(p, s.stimuliId))).statusCode).toBe(201);
    expect((await ctx().app.inject(`/api/sessions/token/${p.sessionToken}`)).statusCode).toBe(200);
    const sessionsBefore = await countRows(ctx().storage, 'sessions');
    const again = await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', query);
    expect(again.statusCode).toBe(403);
    expect(json(again)).toMatchObject({ flag: 'ALREADY_COMPLETED', error: 'ALREADY_COMPLETED' });
    const other = p.playlistId === 1 ? 2 : 1;
    expect((await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', `${query}&playlist_id=${other}`)).statusCode).toBe(403);
    expect(await countRows(ctx().storage, 'sessions')).toBe(sessionsBefore);
    // Someone else is welcome.
    expect((await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=someone-else')).statusCode).toBe(200);
  });
});
