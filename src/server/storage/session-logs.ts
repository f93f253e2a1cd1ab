import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql, type RawBuilder } from 'kysely';
import type { LogStateSummary } from '../body/log-summary.mjs';
import { HttpError } from '../errors.js';
import { nowIso, type Db, type SessionRow, type Storage } from './types.js';

/** What one session may store as interaction logs (README "Limits"): the page posts once or twice per load. */
export const SESSION_LOGS_QUOTA = { posts: 100, bytes: 32 * 1024 * 1024, afterCompletionMs: 60 * 60 * 1000 };

/**
 * A log over this many bytes is stored in pages of at most this size, each in a statement of its own. One 7.5 MB
 * insert held SQLite (and the event loop with it) for 35-60 ms, and 20 of them queued in one group commit far
 * longer; a 256 KiB page takes about a millisecond, and other writes run between two pages.
 */
export const LOG_PAGE_BYTES = 256 * 1024;

/**
 * One session-logs post, stored as one JSON document (the payload without its token, UTF-8 JSON text). Quotas: a
 * session stores at most 100 posts and 32 MiB of logs, and after its completion only for an hour (the end screen's
 * and the closing page's logs come then); past them, 429 LOGS_QUOTA and nothing stored.
 *
 * A log over LOG_PAGE_BYTES is stored in pages (session_log_pages, under a key of its own), one log at a time in
 * the process and one page per statement, the event loop free between two pages; its session_logs row names the
 * key. Readers reach pages only through that row, so they see whole logs or none, and the log is acknowledged only
 * once that row is committed:
 * - PostgreSQL: the pages and the row in one transaction (a killed process's transaction is rolled back);
 * - SQLite: each page its own commit (one transaction would hold the only connection, and every other write, for
 *   the whole log), then the row; pages no row names (a refused post, a killed process) are deleted at once or at
 *   the next start (sweepOrphanLogPages).
 */
export async function storeSessionLogs(storage: Storage, session: SessionRow, logsJson: Buffer, summary: LogStateSummary): Promise<number> {
  refuseAfterCompletion(session);
  const bytes = logsJson.length;
  if (bytes <= LOG_PAGE_BYTES) return storage.write((trx) => commitLog(trx, storage, session, summary, bytes, { body: logsJson.toString('utf8'), logKey: null, pages: 0 }));
  // Refused before its turn and its pages when the session is past its quota already (checked again at commit).
  await checkQuota(storage.db, storage, session, bytes);
  const turn = logQueue.then(() => storePaged(storage, session, summary, logsJson));
  logQueue = turn.catch(() => undefined);
  return turn;
}

/**
 * Paged logs of the whole process, one after the other: 20 logs' pages written at once would fill one SQLite
 * group commit with 5 MB again, or hold 20 PostgreSQL connections that answers need.
 */
let logQueue: Promise<unknown> = Promise.resolve();

async function storePaged(storage: Storage, session: SessionRow, summary: LogStateSummary, json: Buffer): Promise<number> {
  const logKey = randomUUID();
  if (storage.dialect === 'postgres') {
    return storage.write(async (trx) => {
      // The session's row is locked before the pages (whose foreign key takes a key-share lock on it): two posts of
      // one session then queue on that lock instead of deadlocking on an upgrade.
      await checkQuota(trx, storage, session, json.length);
      const pages = await writePages(json, (page) => trx.insertInto('session_log_pages').values({ session_id: session.id, log_key: logKey, ...page }).execute());
      return commitLog(trx, storage, session, summary, json.length, { body: '', logKey, pages });
    });
  }
  try {
    const pages = await writePages(json, (page) =>
      storage.write((trx) => trx.insertInto('session_log_pages').values({ session_id: session.id, log_key: logKey, ...page }).execute(), { singleStatement: true }),
    );
    return await storage.write((trx) => commitLog(trx, storage, session, summary, json.length, { body: '', logKey, pages }));
  } catch (error) {
    await storage.write((trx) => trx.deleteFrom('session_log_pages').where('log_key', '=', logKey).execute(), { singleStatement: true }).catch(() => undefined);
    throw error;
  }
}

function refuseAfterCompletion(session: SessionRow): void {
  if (session.completed_at && Date.now() - Date.parse(session.completed_at) > SESSION_LOGS_QUOTA.afterCompletionMs) {
    throw new HttpError(429, 'LOGS_QUOTA', 'this session was completed over an hour ago and takes no more logs');
  }
}

/**
 * Counted in the transaction that writes, after locking the session's row (PostgreSQL; SQLite's writes are
 * serialised): posts sent at once cannot all read the same count and overrun the quota. FOR NO KEY UPDATE: the
 * answers of the session (whose foreign key takes a key-share lock on that row) never wait for a log.
 */
async function checkQuota(trx: Db, storage: Storage, session: SessionRow, bytes: number): Promise<void> {
  if (storage.dialect === 'postgres') await trx.selectFrom('sessions').select('id').where('id', '=', session.id).forNoKeyUpdate().execute();
  const used = await trx
    .selectFrom('session_logs')
    // The stored size: `bytes` (paged logs have an empty body), else octet_length (SQLite's length() of text counts
    // characters: it reads every earlier log).
    .select((eb) => [eb.fn.countAll().as('posts'), eb.fn.sum(eb.fn.coalesce('bytes', eb.fn('octet_length', ['body']))).as('bytes')])
    .where('session_id', '=', session.id)
    .executeTakeFirstOrThrow();
  if (Number(used.posts) + 1 > SESSION_LOGS_QUOTA.posts || Number(used.bytes ?? 0) + bytes > SESSION_LOGS_QUOTA.bytes) {
    throw new HttpError(429, 'LOGS_QUOTA', `a session stores at most ${SESSION_LOGS_QUOTA.posts} log posts and ${SESSION_LOGS_QUOTA.bytes} bytes of logs`);
  }
}

/** What stores a log and acknowledges it, in the caller's transaction: its body, or its row naming its pages. */
async function commitLog(trx: Db, storage: Storage, session: SessionRow, summary: LogStateSummary, bytes: number, stored: { body: string; logKey: string | null; pages: number }): Promise<number> {
  await checkQuota(trx, storage, session, bytes);
  if (stored.logKey !== null) {
    // Every page must be there (on SQLite, a process started meanwhile on the same file sweeps the pages of a log
    // not committed yet): else nothing is acknowledged, and the page posts the log again.
    const found = await trx.selectFrom('session_log_pages').select((eb) => eb.fn.countAll().as('n')).where('log_key', '=', stored.logKey).executeTakeFirstOrThrow();
    if (Number(found.n) !== stored.pages) throw new HttpError(503, 'LOG_PAGES_LOST', 'the pages of this log were removed before it was stored: send it again');
  }
  const { id } = await trx
    .insertInto('session_logs')
    .values({ session_id: session.id, body: stored.body, log_key: stored.logKey, bytes, state_classes: summary.classes, created_at: nowIso() })
    .returning('id')
    .executeTakeFirstOrThrow();
  // The phase the session reached, for the live statistics (a post without states leaves it as it was).
  if (summary.last) await trx.updateTable('sessions').set({ log_phase: JSON.stringify(summary.last) }).where('id', '=', session.id).execute();
  return id;
}

/**
 * Cuts the log into pages and writes each with `write`, the event loop free between two; returns how many. A page
 * goes to the driver as its UTF-8 bytes, cast to text by the database (SQLite copies them; PostgreSQL receives
 * text in binary form): decoding it into a JavaScript string for the driver to encode again cost the loop twice.
 */
async function writePages(json: Buffer, write: (page: { page_no: number; text: RawBuilder<string>; created_at: string }) => Promise<unknown>): Promise<number> {
  let pageNo = 0;
  for (let start = 0; start < json.length; pageNo++) {
    const end = pageEnd(json, start);
    await write({ page_no: pageNo, text: sql<string>`cast(${json.subarray(start, end)} as text)`, created_at: nowIso() });
    // Whatever else is waiting (requests, other writes) runs before the next page.
    await nextTurn();
    start = end;
  }
  return pageNo;
}

/** Where the page that begins at `start` ends: LOG_PAGE_BYTES later at most, never inside a UTF-8 character. */
export function pageEnd(json: Buffer, start: number): number {
  let end = Math.min(json.length, start + LOG_PAGE_BYTES);
  // 10xxxxxx continues a character: step back to the byte that begins it.
  while (end < json.length && end > start && (json[end]! & 0xc0) === 0x80) end--;
  return end;
}

/** A paged log's text, its pages joined in order (exports). */
export async function pagedLogBody(storage: Storage, logKey: string): Promise<string> {
  const pages = await storage.db.selectFrom('session_log_pages').select('text').where('log_key', '=', logKey).orderBy('page_no').execute();
  return pages.map((p) => p.text).join('');
}

/**
 * Deletes the pages that no session log names: on SQLite, those of posts a killed process never committed (run at
 * start: one server writes to an SQLite file). On PostgreSQL there are none: uncommitted pages are rolled back, and
 * this statement does not see those of other nodes' transactions in progress.
 */
export async function sweepOrphanLogPages(storage: Storage): Promise<number> {
  const result = await storage.write(
    (trx) =>
      trx
        .deleteFrom('session_log_pages')
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('session_logs as l').select(sql.lit(1).as('one')).whereRef('l.log_key', '=', 'session_log_pages.log_key'))))
        .executeTakeFirst(),
    { singleStatement: true },
  );
  return Number(result.numDeletedRows);
}
