import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { MAX_MOUSE_SAMPLES, SESSION_TOKEN_HEADER } from '../../src/contract/payloads.js';
import type { BubblePlaylistStimulus, PlaylistResponse } from '../../src/contract/playlist.js';
import { exportJob } from '../../src/server/export/export.js';
import { migrateTo } from '../../src/server/storage/migrations.js';
import { LOG_PAGE_BYTES } from '../../src/server/storage/text-pages.js';
import { withdraw } from '../../src/server/storage/withdrawals.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { countRows, getPlaylist, json, postJson, useServer } from '../../testkit/server.js';
import { studyOf, writeStudy } from '../../testkit/studies.js';

/**
 * Mouse logs over one page (256 KiB) are stored a page at a time and made visible by the screening's row (issue 21,
 * item 4; storage/text-pages.ts), as large session logs are: the stored and exported text is the posted one, byte
 * for byte; a refused post leaves no page.
 */

/** Pointer samples with fractional coordinates, as a 1000 Hz mouse gives them. */
const samples = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ x: 512.25 + ((from + i) % 300) / 7, y: 384.5 - ((from + i) % 200) / 3, t: 1.000137 * (from + i), vt: 1234.5 + i }));

describeEachDialect('mouse logs in pages', (dialect) => {
  const ctx = useServer(dialect);
  const session = async (pid: string, perPlaylist = 2) => {
    await ctx().importStudy(await writeStudy(studyOf('bubble', { id: 'paged-bubble', playlists: 1, perPlaylist })));
    return json<PlaylistResponse<BubblePlaylistStimulus>>(await getPlaylist(ctx().app, '/api/getbubble/paged-bubble', `platform=prolific&PROLIFIC_PID=${pid}`));
  };
  const body = (p: PlaylistResponse<BubblePlaylistStimulus>, mouseLogs: unknown, screeningNo = 0) => ({
    stimuli_id: p.stimulis[0]!.stimuli_id,
    session_id: p.session_id,
    session_token: p.sessionToken,
    mouse_logs: mouseLogs,
    screening_no: screeningNo,
    logs: null,
  });
  const post = (p: PlaylistResponse<BubblePlaylistStimulus>, payload: unknown, headers: Record<string, string> = {}) =>
    postJson(ctx().app, '/api/bubblescreenings/', payload, { [SESSION_TOKEN_HEADER]: p.sessionToken!, ...headers });
  const exported = async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await exportJob(ctx().storage, 'paged-bubble', { table: 'screenings', format: 'json', out });
    return text;
  };

  it('stores a 3 MB mouse log in pages, exports it byte for byte as posted, replays it; a withdrawal takes its pages', async () => {
    const p = await session('paged');
    const logs = { mediaA: samples(30_000), mediaB: samples(25_000, 7) };
    const expected = JSON.stringify(logs);
    expect(Buffer.byteLength(expected)).toBeGreaterThan(10 * LOG_PAGE_BYTES);
    const res = await post(p, body(p, logs), { 'idempotency-key': 'k-paged' });
    expect(res.statusCode).toBe(201);
    const row = await ctx().storage.db.selectFrom('screenings').selectAll().where('id', '=', json(res).id).executeTakeFirstOrThrow();
    expect([row.mouse_logs, row.bytes]).toEqual(['', Buffer.byteLength(expected)]);
    const pages = await ctx().storage.db.selectFrom('mouse_log_pages').select(['page_no', 'text']).where('log_key', '=', row.log_key!).orderBy('page_no').execute();
    expect(pages.length).toBe(Math.ceil(Buffer.byteLength(expected) / LOG_PAGE_BYTES));
    for (const page of pages) expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(LOG_PAGE_BYTES);
    expect(pages.map((page) => page.text).join('')).toBe(expected);

    // A small log beside it stays in its row; the export writes both as posted, in order.
    const small = { mediaA: samples(3), mediaB: [] };
    expect((await post(p, body(p, small, 1))).statusCode).toBe(201);
    const text = await exported();
    expect(text).toContain(`"mouse_logs":${expected}`);
    expect(text).toContain(`"mouse_logs":${JSON.stringify(small)}`);
    const lines = text.trim().split('\n').map((line) => JSON.parse(line) as { samples_a: number; samples_b: number });
    expect(lines.map((line) => [line.samples_a, line.samples_b])).toEqual([[30_000, 25_000], [3, 0]]);

    // The same post again is a replay (200, same id); other samples for that presentation are refused; no page added.
    const replay = await post(p, body(p, logs), { 'idempotency-key': 'k-paged' });
    expect([replay.statusCode, json(replay).id]).toEqual([200, json(res).id]);
    const other = await post(p, body(p, { ...logs, mediaB: samples(25_000, 8) }), { 'idempotency-key': 'k-paged' });
    expect([other.statusCode, json(other).error]).toEqual([409, 'ALREADY_ANSWERED']);
    expect(await countRows(ctx().storage, 'mouse_log_pages')).toBe(pages.length);

    const { deleted } = await withdraw(ctx().storage, { by: 'prolific-pid', value: 'paged' });
    expect(deleted.screenings).toBe(2);
    expect(await countRows(ctx().storage, 'mouse_log_pages')).toBe(0);
  });

  it('stores the largest log the schema and body limit allow, whole', { timeout: 60_000 }, async () => {
    const p = await session('largest');
    // As many samples of this shape as the 16 MiB body limit takes (under MAX_MOUSE_SAMPLES per side).
    let perSide = 120_000;
    let logs = { mediaA: samples(perSide), mediaB: samples(perSide, 3) };
    let payload = JSON.stringify(body(p, logs));
    while (payload.length >= 16 * 1024 * 1024) {
      perSide -= 500;
      logs = { mediaA: logs.mediaA.slice(0, perSide), mediaB: logs.mediaB.slice(0, perSide) };
      payload = JSON.stringify(body(p, logs));
    }
    expect(payload.length).toBeGreaterThan(15.9 * 1024 * 1024);
    expect(payload.length).toBeLessThan(16 * 1024 * 1024);
    const res = await post(p, JSON.parse(payload));
    expect(res.statusCode).toBe(201);
    expect(await exported()).toContain(`"mouse_logs":${JSON.stringify(logs)}`);
  });

  it('refuses a body over the limit (413) or the sample cap (400), and one past the quota (429), storing nothing', { timeout: 60_000 }, async () => {
    const p = await session('refused', 1); // one test stimulus: 8 MiB of mouse logs in all
    const tooLarge = await post(p, body(p, { mediaA: samples(200_000), mediaB: samples(200_000) }));
    expect(tooLarge.statusCode).toBe(413);
    const tooMany = await post(p, body(p, { mediaA: Array.from({ length: MAX_MOUSE_SAMPLES + 1 }, () => ({ x: 1, y: 2, t: 3, vt: 4 })), mediaB: [] }));
    expect(tooMany.statusCode).toBe(400);
    const fiveMegabytes = { mediaA: samples(30_000), mediaB: samples(30_000) };
    expect((await post(p, body(p, fiveMegabytes, 0))).statusCode).toBe(201);
    const over = await post(p, body(p, fiveMegabytes, 1));
    expect([over.statusCode, json(over).error]).toEqual([429, 'ANSWER_QUOTA']);
    expect(await countRows(ctx().storage, 'screenings')).toBe(1);
    const stored = await ctx().storage.db.selectFrom('screenings').select('log_key').executeTakeFirstOrThrow();
    const own = await ctx().storage.db.selectFrom('mouse_log_pages').select((eb) => eb.fn.countAll().as('n')).where('log_key', '=', stored.log_key!).executeTakeFirstOrThrow();
    expect(await countRows(ctx().storage, 'mouse_log_pages')).toBe(Number(own.n));
  });

  it('gives paged mouse logs their whole text back when migration 016 is undone', async () => {
    const p = await session('down');
    const logs = { mediaA: samples(10_000), mediaB: samples(5_000) };
    expect((await post(p, body(p, logs))).statusCode).toBe(201);
    await migrateTo(ctx().storage.db, dialect, '015_session_log_pages');
    const rows = await ctx().storage.db.selectFrom('screenings').select('mouse_logs').execute();
    expect(rows.map((row) => row.mouse_logs)).toEqual([JSON.stringify(logs)]);
  });
});
