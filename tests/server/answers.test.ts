import { SESSION_TOKEN_HEADER } from '../../src/contract/headers.js';
import { expect, it } from 'vitest';
import type { BubblePlaylistStimulus, PlaylistResponse } from '../../src/contract/playlist.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { holdWhile, oneByOne, PG_POOL_CONNECTIONS } from '../../testkit/interleave.js';
import { countRows, getPlaylist, json, postJson, ratingBody, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { PAIR_STUDY, studyOf, writeStudy } from '../../testkit/studies.js';

describeEachDialect('POST /api/ratings/', (dialect) => {
  const ctx = useServer(dialect);
  const session = async (query = '') => {
    await ctx().importStudy(PAIR_STUDY);
    return json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', query));
  };
  const post = (body: unknown, headers: Record<string, string> = {}) => postJson(ctx().app, '/api/ratings/', body, headers);
  const ratings = () => ctx().storage.db.selectFrom('ratings').selectAll().orderBy('id').execute();
  /**
   * `count` posts of one presentation. PostgreSQL: while the test holds the ratings table (SHARE ROW EXCLUSIVE,
   * which an INSERT waits for), sent one by one until 10 inserts wait on it (the pool's connections), each in a
   * statement of its own (the posts of one event-loop turn share one INSERT and are told apart in the process,
   * answer-batch.ts), then the rest together; released, the waiting inserts contend at the presentation's unique
   * key together. SQLite: sent together, written one after the other.
   */
  const contendOnRatings = async <T>(count: number, send: (i: number) => Promise<T>) => {
    if (dialect !== 'postgres') return { results: await Promise.all(Array.from({ length: count }, (_, i) => send(i))), waiting: null };
    const waiters = Math.min(count, PG_POOL_CONNECTIONS);
    return holdWhile(ctx().database.url, 'lock table ratings in share row exclusive mode', (held) => oneByOne(held, count, waiters, send), waiters);
  };

  it('stores a rating with its timing logs and answers 201 {id, stimuli_id, session_id}', async () => {
    const p = await session();
    const stimulus = p.stimulis[1].stimuliId;
    const logs = JSON.stringify([{ label: 'A', media: ['fixture-pair/blue.png'], requestedFrames: 60, shownFrames: 60, onsetMs: 1.5, offsetMs: 1001.5 }]);
    const res = await post(ratingBody(p, stimulus, { value: 0, nbReplay: 2, logs }));
    expect(res.statusCode).toBe(201);
    const body = json(res);
    expect(body).toEqual({ id: expect.any(Number), stimuli_id: stimulus, session_id: p.session_id });
    expect(await ratings()).toEqual([
      { id: body.id, session_id: p.session_id, stimulus_id: stimulus, dedupe_key: `p:${stimulus}`, idempotency_key: null, value: 0, nb_replay: 2, logs, timing: null, views: null, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    ]);
  });

  it('accepts null logs', async () => {
    const p = await session();
    expect((await post(ratingBody(p, p.stimulis[0].stimuliId, { value: 0, logs: null }))).statusCode).toBe(201);
    expect((await ratings())[0]).toMatchObject({ value: 0, logs: null });
  });

  it.each([[42], [-1.7e308], [0.5], [2]])('refuses the pair value %s with 400 BAD_ANSWER (first 0, last 1 only), storing nothing', async (value) => {
    const p = await session();
    const res = await post(ratingBody(p, p.stimulis[0].stimuliId, { value }));
    expect(res.statusCode).toBe(400);
    expect(json(res)).toEqual({ error: 'BAD_ANSWER', message: `value ${value} is not a pair_comparison answer: it must be one of 0, 1` });
    expect(await countRows(ctx().storage, 'ratings')).toBe(0);
  });

  it('replays an Idempotency-Key with 200 and the first body; any other answer to the stimulus gets 409 ALREADY_ANSWERED with the stored one', async () => {
    const p = await session();
    const stimulus = p.stimulis[0].stimuliId;
    const body = ratingBody(p, stimulus);
    const key = { 'idempotency-key': '4a1a3b8e-54a4-4c4c-9b1e-0c7d1f1d2a11' };
    const first = await post(body, key);
    const retry = await post(body, key);
    expect(first.statusCode).toBe(201);
    expect(retry.statusCode).toBe(200);
    expect(json(retry)).toEqual(json(first));
    const stored = { id: json(first).id, stimuli_id: stimulus, session_id: p.session_id, value: 1, nbReplay: 0 };
    // Same key, another answer (Modify after a lost acknowledgement), and a fresh key after a Replay: the first counts.
    for (const [other, headers] of [[{ ...body, value: 0 }, key], [{ ...body, value: 0, nbReplay: 3 }, { 'idempotency-key': 'after-replay' }], [body, { 'idempotency-key': 'fresh' }]] as const) {
      const res = await post(other, headers);
      expect(res.statusCode).toBe(409);
      expect(json(res)).toEqual({ error: 'ALREADY_ANSWERED', message: expect.stringContaining('the first one counts'), answer: stored });
    }
    expect((await ratings()).map((r) => [r.value, r.dedupe_key, r.idempotency_key])).toEqual([[1, `p:${stimulus}`, key['idempotency-key']]]);
  });

  it('stores one answer per stimulus however many fresh keys post conflicting values at once', async () => {
    const p = await session();
    const stimulus = p.stimulis[0].stimuliId;
    const send = (i: number) => post(ratingBody(p, stimulus, { value: i % 2 }), { 'idempotency-key': `fresh-${i}` });
    const { results: answers, waiting } = await contendOnRatings(25, send);
    expect(waiting).toBe(dialect === 'postgres' ? PG_POOL_CONNECTIONS : null);
    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(answers.filter((r) => r.statusCode === 409 && json(r).error === 'ALREADY_ANSWERED')).toHaveLength(24);
    expect(await countRows(ctx().storage, 'ratings')).toBe(1);
  });

  it('answers each post of a burst sent together on its own: stored, replayed, already answered, foreign token, unknown stimulus', async () => {
    // On PostgreSQL the posts that reach the store in one event-loop turn share one INSERT (storage/answer-batch.ts);
    // which do is not forced here: the answers must be right either way.
    const a = await session('platform=prolific&PROLIFIC_PID=burstA');
    const b = await session('platform=prolific&PROLIFIC_PID=burstB');
    const posts = [
      ...a.stimulis.map((s, i) => post(ratingBody(a, s.stimuliId, { value: i % 2 }), { 'idempotency-key': `a-${i}` })),
      post(ratingBody(a, a.stimulis[0].stimuliId, { value: 0 }), { 'idempotency-key': 'a-0' }),
      post(ratingBody(a, a.stimulis[1].stimuliId, { value: 0 }), { 'idempotency-key': 'a-other' }),
      post(ratingBody(b, b.stimulis[0].stimuliId), { 'idempotency-key': 'b-0' }),
      post({ ...ratingBody(b, b.stimulis[1].stimuliId), session_token: a.sessionToken }, { 'idempotency-key': 'b-forged' }),
      post(ratingBody(b, 999_999), { 'idempotency-key': 'b-unknown' }),
    ];
    const answers = await Promise.all(posts);
    const n = a.stimulis.length;
    const status = (i: number) => answers[i]!.statusCode;
    // Which of two racing posts is stored first is the server's to decide; each gets the answer its order deserves.
    // Stimulus 0, the same post twice: one stored (201), the other a replay of it (200, same id).
    expect([status(0), status(n)].sort()).toEqual([200, 201]);
    expect(json(answers[0]!).id).toBe(json(answers[n]!).id);
    // Stimulus 1, two keys with different values: one stored, the other told the stored answer (the first counts).
    const [stored1, refused1] = status(1) === 201 ? [answers[1]!, answers[n + 1]!] : [answers[n + 1]!, answers[1]!];
    expect([stored1.statusCode, refused1.statusCode, json(refused1).error, json(refused1).answer.id]).toEqual([201, 409, 'ALREADY_ANSWERED', json(stored1).id]);
    expect(answers.slice(2, n).map((r) => r.statusCode)).toEqual(a.stimulis.slice(2).map(() => 201));
    expect(status(n + 2)).toBe(201);
    expect(status(n + 3)).toBe(403);
    expect(status(n + 4)).toBe(404);
    const stored = await ctx().storage.db.selectFrom('ratings').select(['id', 'session_id', 'stimulus_id', 'value', 'idempotency_key']).orderBy('stimulus_id').execute();
    expect(stored).toHaveLength(n + 1);
    // Session a holds one row per stimulus, each with the value and key of the post that stored it.
    const expected = a.stimulis.map((s, i) => (i === 1 && status(1) !== 201 ? [s.stimuliId, 0, 'a-other'] : [s.stimuliId, i % 2, `a-${i}`]));
    expect(stored.filter((r) => r.session_id === a.session_id).map((r) => [r.stimulus_id, r.value, r.idempotency_key])).toEqual(expected.sort((x, y) => (x[0] as number) - (y[0] as number)));
    // Every 201 named a stored row.
    const created = answers.filter((r) => r.statusCode === 201).map((r) => json(r).id as number);
    expect(created.sort((x, y) => x - y)).toEqual(stored.map((r) => r.id).sort((x, y) => x - y));
  });

  it('without a key, replays an identical post and answers a different one with the stored answer', async () => {
    const p = await session();
    const body = ratingBody(p, p.stimulis[0].stimuliId);
    const first = await post(body);
    expect((await post(body)).statusCode).toBe(200);
    const dup = await post({ ...body, value: 0 });
    expect(dup.statusCode).toBe(409);
    expect(json(dup)).toMatchObject({ error: 'ALREADY_ANSWERED', answer: { id: json(first).id, value: 1 } });
    expect((await ratings()).map((r) => [r.id, r.value])).toEqual([[json(first).id, 1]]);
  });

  it('refuses an answer to a training example with 409 TRAINING_STIMULUS', async () => {
    const study = studyOf('pair_comparison', { id: 'with-training', playlists: 1, perPlaylist: 2, training: 1 });
    await ctx().importStudy(await writeStudy(study));
    const p = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/with-training'));
    const res = await post(ratingBody(p, p.stimulis_training[0]!.stimuliId));
    expect(res.statusCode).toBe(409);
    expect(json(res).error).toBe('TRAINING_STIMULUS');
    expect(await countRows(ctx().storage, 'ratings')).toBe(0);
  });

  it('reads a text/plain body (navigator.sendBeacon) as JSON', async () => {
    const p = await session();
    const res = await ctx().app.inject({
      method: 'POST',
      url: '/api/ratings/',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      payload: JSON.stringify(ratingBody(p, p.stimulis[0].stimuliId)),
    });
    expect(res.statusCode).toBe(201);
    expect(await countRows(ctx().storage, 'ratings')).toBe(1);
  });

  it('stores each of many concurrent retries once', async () => {
    const p = await session();
    const body = ratingBody(p, p.stimulis[0].stimuliId);
    const { results: answers, waiting } = await contendOnRatings(10, () => post(body, { 'idempotency-key': 'same' }));
    expect(waiting).toBe(dialect === 'postgres' ? 10 : null);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(await countRows(ctx().storage, 'ratings')).toBe(1);
  });

  it.each([
    ['a missing field', (b: any) => { delete b.nbReplay; return b; }, 'body.nbReplay'],
    ['a wrong type', (b: any) => ({ ...b, value: '1' }), 'body.value'],
    ['a numeric string id', (b: any) => ({ ...b, stimuli_id: String(b.stimuli_id) }), 'body.stimuli_id'],
    ['an unknown field', (b: any) => ({ ...b, answer: 'optionimageA' }), 'body.answer'],
    ['a negative nbReplay', (b: any) => ({ ...b, nbReplay: -1 }), 'body.nbReplay'],
  ])('refuses %s with 400 VALIDATION and its path, storing nothing', async (_what, mutate, path) => {
    const p = await session();
    const res = await post(mutate(ratingBody(p, p.stimulis[0].stimuliId)));
    expect(res.statusCode).toBe(400);
    const err = json(res);
    expect(err.error).toBe('VALIDATION');
    expect(err.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await countRows(ctx().storage, 'ratings')).toBe(0);
  });

  it('refuses a malformed body, a non-JSON body and a bad Idempotency-Key', async () => {
    const p = await session();
    const bad = await ctx().app.inject({ method: 'POST', url: '/api/ratings/', headers: { 'content-type': 'application/json' }, payload: '{"stimuli_id": 1,' });
    expect(bad.statusCode).toBe(400);
    expect(json(bad).error).toBe('BAD_REQUEST');
    const form = await ctx().app.inject({ method: 'POST', url: '/api/ratings/', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'a=1' });
    expect(form.statusCode).toBe(415);
    expect(json(form).error).toBe('UNSUPPORTED_MEDIA_TYPE');
    // text/plain (navigator.sendBeacon) is read as JSON: not JSON, so 400.
    const text = await ctx().app.inject({ method: 'POST', url: '/api/ratings/', headers: { 'content-type': 'text/plain' }, payload: 'hello' });
    expect(text.statusCode).toBe(400);
    const key = await post(ratingBody(p, p.stimulis[0].stimuliId), { 'idempotency-key': 'has space' });
    expect(key.statusCode).toBe(400);
    expect(json(key).details[0].path).toBe('headers["idempotency-key"]');
    expect(await countRows(ctx().storage, 'ratings')).toBe(0);
  });

  it('refuses a body over 12 MiB with 413', async () => {
    const p = await session();
    const res = await post(ratingBody(p, p.stimulis[0].stimuliId, { logs: 'x'.repeat(12 * 1024 * 1024 + 1) }), { [SESSION_TOKEN_HEADER]: p.sessionToken! });
    expect(res.statusCode).toBe(413);
    expect(json(res)).toMatchObject({ error: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining(String(12 * 1024 * 1024)) });
    expect(await countRows(ctx().storage, 'ratings')).toBe(0);
  });

  it('refuses a wrong token and another session\'s token with 403', async () => {
    const mine = await session();
    const theirs = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair'));
    const wrong = await post(ratingBody(mine, mine.stimulis[0].stimuliId, { session_token: 'A'.repeat(43) }));
    expect(wrong.statusCode).toBe(403);
    expect(json(wrong).error).toBe('FORBIDDEN');
    // Token B acting on session A.
    const foreign = await post(ratingBody(mine, mine.stimulis[0].stimuliId, { session_token: theirs.sessionToken }));
    expect(foreign.statusCode).toBe(403);
    expect(await countRows(ctx().storage, 'ratings')).toBe(0);
  });

  it('refuses an unknown session, an unknown stimulus and a stimulus of another playlist with 404', async () => {
    const mine = await session();
    const theirs = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair'));
    expect(theirs.playlistId).not.toBe(mine.playlistId);
    const unknownSession = await post(ratingBody(mine, mine.stimulis[0].stimuliId, { session_id: 999999 }));
    expect(unknownSession.statusCode).toBe(404);
    const unknownStimulus = await post(ratingBody(mine, 999999));
    expect(unknownStimulus.statusCode).toBe(404);
    expect(json(unknownStimulus).error).toBe('NOT_FOUND');
    const foreignStimulus = await post(ratingBody(mine, theirs.stimulis[0].stimuliId));
    expect(foreignStimulus.statusCode).toBe(404);
    expect(await countRows(ctx().storage, 'ratings')).toBe(0);
  });

  it('takes no new rating once the session is completed, but still replays', async () => {
    const p = await session();
    const bodies = p.stimulis.map((s) => ratingBody(p, s.stimuliId));
    for (const b of bodies) expect((await post(b)).statusCode).toBe(201);
    expect((await ctx().app.inject(`/api/sessions/token/${p.sessionToken}`)).statusCode).toBe(200);
    expect((await post(bodies[0])).statusCode).toBe(200);
    const late = await post({ ...bodies[0], value: 0 }, { 'idempotency-key': 'late' });
    expect(late.statusCode).toBe(409);
    expect(json(late).error).toBe('ALREADY_ANSWERED');
    expect(await countRows(ctx().storage, 'ratings')).toBe(2);
  });
});

describeEachDialect('POST /api/bubblescreenings/', (dialect) => {
  const ctx = useServer(dialect);
  const bubble = async (query = '') => {
    const study = studyOf('bubble', { id: 'bubble-test', playlists: 1, perPlaylist: 2 });
    await ctx().importStudy(await writeStudy(study));
    return json<PlaylistResponse<BubblePlaylistStimulus>>(await getPlaylist(ctx().app, '/api/getbubble/bubble-test', query));
  };
  const samples = (n: number) => Array.from({ length: n }, (_, i) => ({ x: i, y: 2 * i, t: 16.6 * i, vt: 0 }));
  const screening = (p: PlaylistResponse<BubblePlaylistStimulus>, stimulusId: number, extra: Record<string, unknown> = {}) => ({
    stimuli_id: stimulusId,
    session_id: p.session_id,
    session_token: p.sessionToken,
    mouse_logs: { mediaA: samples(3), mediaB: samples(2) },
    screening_no: 0,
    logs: null,
    ...extra,
  });
  const post = (body: unknown, headers: Record<string, string> = {}) => postJson(ctx().app, '/api/bubblescreenings/', body, headers);

  it('stores the mouse logs as JSON and replays by key', async () => {
    const p = await bubble();
    const body = screening(p, p.stimulis[0].stimuli_id);
    const res = await post(body, { 'idempotency-key': 'k1' });
    expect(res.statusCode).toBe(201);
    expect(json(res)).toEqual({ id: expect.any(Number), stimuli_id: body.stimuli_id, session_id: p.session_id });
    expect((await post(body, { 'idempotency-key': 'k1' })).statusCode).toBe(200);
    const rows = await ctx().storage.db.selectFrom('screenings').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0].mouse_logs)).toEqual(body.mouse_logs);
    expect(rows[0].screening_no).toBe(0);
  });

  it('keys screenings by (stimulus, screening_no): a repetition is a new row, any other post of the same play a 409', async () => {
    const p = await bubble();
    const id = p.stimulis[0].stimuli_id;
    const first = await post(screening(p, id));
    expect(first.statusCode).toBe(201);
    expect((await post(screening(p, id, { screening_no: 1 }))).statusCode).toBe(201);
    for (const headers of [{}, { 'idempotency-key': 'fresh-1' }, { 'idempotency-key': 'fresh-2' }] as Array<Record<string, string>>) {
      const changed = await post(screening(p, id, { mouse_logs: { mediaA: samples(1), mediaB: [] } }), headers);
      expect(changed.statusCode).toBe(409);
      expect(json(changed)).toMatchObject({ error: 'ALREADY_ANSWERED', answer: { id: json(first).id, screening_no: 0 } });
    }
    expect(await countRows(ctx().storage, 'screenings')).toBe(2);
  });

  it('takes one rating per play of a bubble stimulus (each repetition is rated), and only its values', async () => {
    const p = await bubble();
    const id = p.stimulis[0].stimuli_id;
    const rate = (nbReplay: number, value: number, key: string) =>
      postJson(ctx().app, '/api/ratings/', { stimuli_id: id, session_id: p.session_id, session_token: p.sessionToken, value, nbReplay, logs: null }, { 'idempotency-key': key });
    expect((await rate(0, 1, 'a')).statusCode).toBe(201);
    expect((await rate(1, 0, 'b')).statusCode).toBe(201);
    expect(json(await rate(1, 1, 'c'))).toMatchObject({ error: 'ALREADY_ANSWERED', answer: { value: 0, nbReplay: 1 } });
    expect(json(await rate(2, 5, 'd'))).toMatchObject({ error: 'BAD_ANSWER' });
    expect(await countRows(ctx().storage, 'ratings')).toBe(2);
  });

  it.each([
    ['a sample with an unknown field', (b: any) => ({ ...b, mouse_logs: { mediaA: [{ x: 1, y: 1, t: 1, vt: 0, z: 1 }], mediaB: [] } }), 'body.mouse_logs.mediaA[0].z'],
    ['a missing mediaB', (b: any) => ({ ...b, mouse_logs: { mediaA: [] } }), 'body.mouse_logs.mediaB'],
    ['logs that are not null', (b: any) => ({ ...b, logs: 'text' }), 'body.logs'],
    ['a string coordinate', (b: any) => ({ ...b, mouse_logs: { mediaA: [{ x: '1', y: 1, t: 1, vt: 0 }], mediaB: [] } }), 'body.mouse_logs.mediaA[0].x'],
  ])('refuses %s with 400, storing nothing', async (_what, mutate, path) => {
    const p = await bubble();
    const res = await post(mutate(screening(p, p.stimulis[0].stimuli_id)));
    expect(res.statusCode).toBe(400);
    expect(json(res).details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await countRows(ctx().storage, 'screenings')).toBe(0);
  });

  it('accepts a large mouse log under 16 MiB and refuses one over it with 413', async () => {
    const p = await bubble();
    const id = p.stimulis[0].stimuli_id;
    const header = { 'glimpse-session-token': p.sessionToken! };
    const big = await post(screening(p, id, { mouse_logs: { mediaA: samples(60_000), mediaB: samples(60_000) } }), header);
    expect(big.statusCode).toBe(201);
    const huge = await post(screening(p, id, { screening_no: 1, mouse_logs: { mediaA: samples(190_000), mediaB: samples(190_000) } }), header);
    expect(huge.statusCode).toBe(413);
    expect(await countRows(ctx().storage, 'screenings')).toBe(1);
  });

  it('refuses a foreign token (403) and an unknown stimulus (404)', async () => {
    const p = await bubble();
    const other = json<PlaylistResponse<BubblePlaylistStimulus>>(await getPlaylist(ctx().app, '/api/getbubble/bubble-test'));
    expect((await post(screening(p, p.stimulis[0].stimuli_id, { session_token: other.sessionToken }))).statusCode).toBe(403);
    expect((await post(screening(p, 424242))).statusCode).toBe(404);
    expect(await countRows(ctx().storage, 'screenings')).toBe(0);
  });
});
