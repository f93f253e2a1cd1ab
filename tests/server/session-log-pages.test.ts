import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { SESSION_TOKEN_HEADER } from '../../src/contract/payloads.js';
import { exportJob } from '../../src/server/export/export.js';
import { migrateTo } from '../../src/server/storage/migrations.js';
import { openStorage } from '../../src/server/storage/open.js';
import { LOG_PAGE_BYTES, SESSION_LOGS_QUOTA } from '../../src/server/storage/session-logs.js';
import type { Storage } from '../../src/server/storage/types.js';
import { withdraw } from '../../src/server/storage/withdrawals.js';
import { importStudy } from '../../src/server/study/import.js';
import { createTestDatabase, describeEachDialect } from '../../testkit/databases.js';
import { isAlive, startNode, waitFor } from '../../testkit/node-process.js';
import { countRows, getPlaylist, json, postJson, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { PAIR_STUDY } from '../../testkit/studies.js';

/**
 * Session logs over one page (256 KiB) are stored a page at a time and made visible by one final commit (issue 21,
 * item 4; storage/session-logs.ts): what a reader sees is the whole log or nothing, on both databases, also when a
 * post is refused half-way or the server is killed during it.
 */

/** A valid session log of about `megabytes` MB whose clicks hold 2-, 3- and 4-byte characters (pages cut between them). */
function bigLog(token: string, megabytes: number) {
  const clicks = Array.from({ length: Math.round((megabytes * 1e6) / 120) }, (_, i) => ({ button: 0, component_id: `é€${'😀'.repeat(12)}-${i}`, pageX: 10.5, pageY: i, time: 1000 + i }));
  return {
    sessionToken: token,
    logStates: [{ state: 'Test', status: 'test', time: 1 }],
    logMouseMovement: [{ posX: 1, posY: 2, time: 3 }],
    logMouseClick: clicks,
    logScroll: [],
    logKeyboard: [],
    logFocus: [],
    logDomSize: [],
  };
}

const withoutToken = ({ sessionToken: _token, ...rest }: ReturnType<typeof bigLog>) => rest;

async function exportedLogs(storage: Storage, jobId: string): Promise<Array<{ log_id: number; body: unknown }>> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  await exportJob(storage, jobId, { table: 'sessionlogs', format: 'json', out });
  return text.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { log_id: number; body: unknown });
}

describeEachDialect('session logs in pages', (dialect) => {
  const ctx = useServer(dialect);
  const session = async (pid: string) => {
    await ctx().importStudy(PAIR_STUDY);
    return json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair', `platform=prolific&PROLIFIC_PID=${pid}`));
  };
  const post = (p: GenericPlaylist, body: unknown) => postJson(ctx().app, '/api/sessionlogs/', body, { [SESSION_TOKEN_HEADER]: p.sessionToken! });
  const pagesOf = (logKey: string | null) => ctx().storage.db.selectFrom('session_log_pages').select(['page_no', 'text']).where('log_key', '=', logKey!).orderBy('page_no').execute();

  it('stores a 3 MB log in pages of at most 256 KiB, cut between characters, and exports it whole; a withdrawal takes its pages', async () => {
    const p = await session('paged');
    const body = bigLog(p.sessionToken!, 3);
    const expected = JSON.stringify(withoutToken(body));
    const res = await post(p, body);
    expect(res.statusCode).toBe(201);
    const row = await ctx().storage.db.selectFrom('session_logs').selectAll().where('id', '=', json(res).id).executeTakeFirstOrThrow();
    expect([row.body, row.bytes, row.state_classes]).toEqual(['', Buffer.byteLength(expected), 'O']);
    const pages = await pagesOf(row.log_key);
    expect(pages.length).toBe(Math.ceil(Buffer.byteLength(expected) / LOG_PAGE_BYTES));
    expect(pages.map((page) => page.page_no)).toEqual(pages.map((_, i) => i));
    for (const page of pages) expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(LOG_PAGE_BYTES);
    // Some page ends inside what would have been a character had it been cut at 256 KiB exactly.
    expect(pages.some((page) => Buffer.byteLength(page.text) < LOG_PAGE_BYTES && page !== pages.at(-1))).toBe(true);
    expect(pages.map((page) => page.text).join('')).toBe(expected);

    // A small log beside it stays in its row; the export gives both whole, in order.
    const small = await post(p, { ...bigLog(p.sessionToken!, 0.001), logStates: [] });
    expect(small.statusCode).toBe(201);
    const exported = await exportedLogs(ctx().storage, 'fixture-pair');
    expect(exported.map((line) => line.log_id)).toEqual([json(res).id, json(small).id]);
    expect(exported[0]!.body).toEqual(JSON.parse(expected));
    expect(exported[1]!.body).toEqual(withoutToken({ ...bigLog(p.sessionToken!, 0.001), logStates: [] }));

    const { deleted } = await withdraw(ctx().storage, { by: 'prolific-pid', value: 'paged' });
    expect(deleted.sessionLogs).toBe(2);
    expect(await countRows(ctx().storage, 'session_log_pages')).toBe(0);
  });

  it('gives paged logs their whole body back when migration 015 is undone', async () => {
    const p = await session('down');
    const body = bigLog(p.sessionToken!, 1);
    expect((await post(p, body)).statusCode).toBe(201);
    await migrateTo(ctx().storage.db, dialect, '012_preview_sessions');
    const rows = await ctx().storage.db.selectFrom('session_logs').select('body').execute();
    expect(rows.map((row) => row.body)).toEqual([JSON.stringify(withoutToken(body))]);
  });

  it('counts paged logs in the quota by their bytes; of two logs sent together with room for one, one is stored and the other leaves no page', async () => {
    const p = await session('quota');
    const body = bigLog(p.sessionToken!, 1.2);
    const size = Buffer.byteLength(JSON.stringify(withoutToken(body)));
    // Room for one more log of that size, not two.
    await ctx()
      .storage.db.insertInto('session_logs')
      .values({ session_id: p.session_id!, body: '', log_key: null, bytes: SESSION_LOGS_QUOTA.bytes - Math.round(1.5 * size), state_classes: '', created_at: new Date().toISOString() })
      .execute();
    // Nothing to force at the database: a process writes one paged log at a time (text-pages.ts), and the early check
    // of each log takes no lock. Both may pass that check; the check under the session's row lock, in the
    // transaction that names the pages, refuses the second.
    const answers = await Promise.all([post(p, body), post(p, body)]);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([201, 429]);
    expect(json(answers.find((res) => res.statusCode === 429)!).error).toBe('LOGS_QUOTA');
    const stored = await ctx().storage.db.selectFrom('session_logs').select('log_key').where('log_key', 'is not', null).execute();
    expect(stored).toHaveLength(1);
    // The refused log's pages, if it wrote any before its commit was refused, are gone.
    expect(await countRows(ctx().storage, 'session_log_pages')).toBe((await pagesOf(stored[0]!.log_key)).length);
    // Past the quota, a third is refused before any page is written.
    const third = await post(p, body);
    expect([third.statusCode, json(third).error]).toEqual([429, 'LOGS_QUOTA']);
    expect(await countRows(ctx().storage, 'session_log_pages')).toBe((await pagesOf(stored[0]!.log_key)).length);
  });
});

describeEachDialect('kill -9 while a log is stored in pages', (dialect) => {
  it('shows no half log, and leaves no page after the restart', { timeout: 120_000 }, async () => {
    const database = await createTestDatabase(dialect);
    const mediaDir = join(database.dir, 'media');
    const env = { DATABASE_URL: database.url, MEDIA_DIR: mediaDir };
    const storage = await openStorage({ databaseUrl: database.url });
    try {
      await importStudy(storage, PAIR_STUDY, mediaDir);
      const first = await startNode(env);
      const p = (await (await fetch(`${first.url}/api/getrandomtasks/fixture-pair?platform=prolific&PROLIFIC_PID=crash`)).json()) as GenericPlaylist;
      const body = JSON.stringify(bigLog(p.sessionToken!, 7.5));
      const posted = fetch(`${first.url}/api/sessionlogs/`, { method: 'POST', headers: { 'content-type': 'application/json', [SESSION_TOKEN_HEADER]: p.sessionToken! }, body }).catch(() => null);
      // Killed once the first pages are written: SQLite commits each page (seen from here), PostgreSQL writes them
      // in the log's transaction (seen as its lock on the table).
      const writingPages =
        dialect === 'sqlite'
          ? async () => (await countRows(storage, 'session_log_pages')) > 0
          : async () =>
              (await sql<{ n: number }>`select count(*)::int as n from pg_locks where locktype = 'relation' and relation = 'session_log_pages'::regclass and pid <> pg_backend_pid()`.execute(storage.db)).rows[0]!.n > 0;
      await waitFor(writingPages, 30_000, 2);
      process.kill(first.pid, 'SIGKILL');
      await waitFor(async () => !isAlive(first.pid));
      expect(await posted).toBeNull();
      expect(await countRows(storage, 'session_logs')).toBe(0);
      // SQLite: the committed pages of the killed post are there, named by no log, until the next start.
      if (dialect === 'sqlite') expect(await countRows(storage, 'session_log_pages')).toBeGreaterThan(0);

      const second = await startNode(env);
      // PostgreSQL rolls the killed connection's transaction back once it sees the socket closed.
      await waitFor(async () => (await countRows(storage, 'session_log_pages')) === 0 && !(await writingPages()));
      expect(await countRows(storage, 'session_logs')).toBe(0);
      // The same log posted again is stored whole.
      const again = await fetch(`${second.url}/api/sessionlogs/`, { method: 'POST', headers: { 'content-type': 'application/json', [SESSION_TOKEN_HEADER]: p.sessionToken! }, body });
      expect(again.status).toBe(201);
      const exported = await exportedLogs(storage, 'fixture-pair');
      expect(exported.map((line) => line.body)).toEqual([withoutToken(JSON.parse(body) as ReturnType<typeof bigLog>)]);
      await second.stop();
    } finally {
      await storage.close();
      await database.drop();
    }
  });
});
