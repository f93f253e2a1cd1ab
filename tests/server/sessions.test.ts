import { expect, it } from 'vitest';
import type { BubblePlaylistStimulus, PlaylistResponse } from '../../src/contract/playlist.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { countRows, getPlaylist, json, postJson, ratingBody, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { PAIR_STUDY, studyOf, writeStudy } from '../../testkit/studies.js';

describeEachDialect('GET /api/sessions/token/{token}', (dialect) => {
  const ctx = useServer(dialect);
  const verify = (token: string) => ctx().app.inject(`/api/sessions/token/${token}`);
  const sessionRow = (id: number) => ctx().storage.db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('answers 409 INCOMPLETE with the missing stimuli until every test stimulus is rated, then a stable code', async () => {
    await ctx().importStudy(await writeStudy(studyOf('double_stimulus_impairment_scale', { id: 'dsis', playlists: 1, perPlaylist: 3, training: 2 })));
    const p = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getdsis/dsis'));
    const ids = p.stimulis.map((s) => s.stimuliId);

    const none = await verify(p.sessionToken!);
    expect(none.statusCode).toBe(409);
    expect(json(none)).toMatchObject({ error: 'INCOMPLETE', missing: ids });

    // A training example takes no answer.
    expect(json(await postJson(ctx().app, '/api/ratings/', ratingBody(p, p.stimulis_training[0].stimuliId)))).toMatchObject({ error: 'TRAINING_STIMULUS' });
    await postJson(ctx().app, '/api/ratings/', ratingBody(p, ids[0]));
    await postJson(ctx().app, '/api/ratings/', ratingBody(p, ids[2]));
    const partial = await verify(p.sessionToken!);
    expect(partial.statusCode).toBe(409);
    expect(json(partial).missing).toEqual([ids[1]]);
    expect((await sessionRow(p.session_id!)).completed_at).toBeNull();

    await postJson(ctx().app, '/api/ratings/', ratingBody(p, ids[1]));
    const done = await verify(p.sessionToken!);
    expect(done.statusCode).toBe(200);
    const { verification_code } = json(done);
    expect(verification_code).toMatch(/^[A-Z0-9]{12}$/);
    const stored = await sessionRow(p.session_id!);
    expect(stored.verification_code).toBe(verification_code);
    expect(stored.completed_at).not.toBeNull();
    // Same code on every later call, also concurrent ones.
    const again = await Promise.all([verify(p.sessionToken!), verify(p.sessionToken!), verify(p.sessionToken!)]);
    expect(again.map((r) => json(r).verification_code)).toEqual([verification_code, verification_code, verification_code]);
  });

  it('gives different sessions different codes', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const codes = [];
    for (let i = 0; i < 2; i++) {
      const p = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair'));
      for (const s of p.stimulis) await postJson(ctx().app, '/api/ratings/', ratingBody(p, s.stimuliId));
      codes.push(json(await verify(p.sessionToken!)).verification_code);
    }
    expect(codes[0]).not.toBe(codes[1]);
  });

  it('completes a free-task bubble session on mouse logs, a rated one on ratings', async () => {
    await ctx().importStudy(await writeStudy(studyOf('bubble', { id: 'bub', playlists: 1, perPlaylist: 2 })));
    const screening = (p: PlaylistResponse<BubblePlaylistStimulus>, id: number) => ({
      stimuli_id: id,
      session_id: p.session_id,
      session_token: p.sessionToken,
      mouse_logs: { mediaA: [{ x: 1, y: 2, t: 3, vt: 0 }], mediaB: [] },
      screening_no: 0,
      logs: null,
    });
    const free = json<PlaylistResponse<BubblePlaylistStimulus>>(await getPlaylist(ctx().app, '/api/getbubble/bub', 'ft=1&dd=1000&bl=4'));
    expect((await sessionRow(free.session_id!)).free_task).toBe(1);
    for (const s of free.stimulis) await postJson(ctx().app, '/api/bubblescreenings/', screening(free, s.stimuli_id));
    expect((await verify(free.sessionToken!)).statusCode).toBe(200);

    const rated = json<PlaylistResponse<BubblePlaylistStimulus>>(await getPlaylist(ctx().app, '/api/getbubble/bub', 'ft=0'));
    for (const s of rated.stimulis) await postJson(ctx().app, '/api/bubblescreenings/', screening(rated, s.stimuli_id));
    const incomplete = await verify(rated.sessionToken!);
    expect(incomplete.statusCode).toBe(409);
    expect(json(incomplete).message).toContain('rating');
    for (const s of rated.stimulis) {
      const body = { stimuli_id: s.stimuli_id, session_id: rated.session_id, session_token: rated.sessionToken, value: 2, nbReplay: 0, logs: 'inner 800x600' };
      expect((await postJson(ctx().app, '/api/ratings/', body)).statusCode).toBe(201);
    }
    expect((await verify(rated.sessionToken!)).statusCode).toBe(200);
  });

  it('answers 404 for an unknown token and 400 for a malformed one', async () => {
    expect((await verify('A'.repeat(43))).statusCode).toBe(404);
    expect(json(await verify('A'.repeat(43))).error).toBe('NOT_FOUND');
    expect((await verify('short')).statusCode).toBe(400);
  });
});

describeEachDialect('POST /api/sessionlogs/', (dialect) => {
  const ctx = useServer(dialect);
  const logs = (token: string | null) => ({
    sessionToken: token,
    logStates: [{ state: 'Landing', status: 'ok', time: 1 }, { state: 'Result', status: 'ok', time: 90 }],
    logMouseMovement: [{ posX: 10, posY: 20, time: 5 }],
    logMouseClick: [{ button: 0, component_id: 'submit', pageX: 10, pageY: 20, time: 6 }],
    logScroll: [{ top: 0, height: 900, left: 0, width: 1600, time: 7 }],
    logKeyboard: [{ key: 'a', code: 'KeyA', repeat: false, shiftKey: false, altKey: false, ctrlKey: false, time: 8 }],
    logFocus: [{ focus: true, time: 9 }],
    logDomSize: [
      {
        inner: { width: 1600, height: 900 },
        outer: { width: 1600, height: 900 },
        screen: { width: 1600, height: 900 },
        available: { width: 1600, height: 870 },
        document: { width: 1600, height: 900 },
        zoom: 1,
        isfullScreen: true,
        time: 10,
      },
    ],
  });
  const session = async () => {
    await ctx().importStudy(PAIR_STUDY);
    return json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair'));
  };

  it('stores the logs as JSON text tied to the session', async () => {
    const p = await session();
    const body = logs(p.sessionToken);
    const res = await postJson(ctx().app, '/api/sessionlogs/', body);
    expect(res.statusCode).toBe(201);
    expect(json(res)).toEqual({ id: expect.any(Number), session_id: p.session_id });
    const rows = await ctx().storage.db.selectFrom('session_logs').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0].session_id).toBe(p.session_id);
    const { sessionToken: _token, ...rest } = body;
    expect(JSON.parse(rows[0].body)).toEqual(rest);
  });

  it('refuses an unknown token with 403 and bad entries with 400, storing nothing', async () => {
    const p = await session();
    expect((await postJson(ctx().app, '/api/sessionlogs/', logs('B'.repeat(43)))).statusCode).toBe(403);
    const missing = { ...logs(p.sessionToken) } as Record<string, unknown>;
    delete missing.logFocus;
    const res = await postJson(ctx().app, '/api/sessionlogs/', missing);
    expect(res.statusCode).toBe(400);
    expect(json(res).details[0].path).toBe('body.logFocus');
    const wrongType = await postJson(ctx().app, '/api/sessionlogs/', { ...logs(p.sessionToken), logFocus: [{ focus: 'yes', time: 1 }] });
    expect(json(wrongType).details[0].path).toBe('body.logFocus[0].focus');
    const unknown = await postJson(ctx().app, '/api/sessionlogs/', { ...logs(p.sessionToken), logExtra: [] });
    expect(json(unknown).details[0]).toEqual({ path: 'body.logExtra', message: 'unknown field' });
    expect(await countRows(ctx().storage, 'session_logs')).toBe(0);
  });

  it('refuses a body over 8 MiB with 413', async () => {
    const p = await session();
    const body = { ...logs(p.sessionToken), logMouseMovement: Array.from({ length: 99_000 }, (_, i) => ({ posX: 123456.789, posY: 987654.321, time: 1e12 + i })) };
    const size = JSON.stringify(body).length;
    expect(size).toBeGreaterThan(4 * 1024 * 1024);
    expect(size).toBeLessThan(8 * 1024 * 1024);
    // Over 1 MiB the session token must come in a header, checked before the body is read.
    const withoutHeader = await postJson(ctx().app, '/api/sessionlogs/', body);
    expect([withoutHeader.statusCode, json(withoutHeader).error]).toEqual([401, 'SESSION_TOKEN_REQUIRED']);
    const header = { 'glimpse-session-token': p.sessionToken! };
    expect((await postJson(ctx().app, '/api/sessionlogs/', body, header)).statusCode).toBe(201);
    const over = { ...body, logMouseClick: Array.from({ length: 60_000 }, (_, i) => ({ button: 0, component_id: 'x'.repeat(40), pageX: 1, pageY: 2, time: i })) };
    const res = await postJson(ctx().app, '/api/sessionlogs/', over, header);
    expect(res.statusCode).toBe(413);
    expect(await countRows(ctx().storage, 'session_logs')).toBe(1);
  });
});
