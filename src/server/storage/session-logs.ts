import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'kysely';
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
 * A log over LOG_PAGE_BYTES is written in pages first (session_log_pages, under a key of its own), one page at a
 * time in the process, then made visible by the one transaction that checks the quota and inserts its session_logs
 * row naming that key. Readers reach pages only through that row, so they see whole logs or none; pages that no
 * row names (a refused post, a process killed mid-way) are deleted (here, or by sweepOrphanLogPages at start).
 */
export async function storeSessionLogs(storage: Storage, session: SessionRow, logsJson: Buffer, summary: LogStateSummary): Promise<number> {
  refuseAfterCompletion(session);
  if (logsJson.length <= LOG_PAGE_BYTES) return commitLog(storage, session, summary, logsJson.length, { body: logsJson.toString('utf8'), logKey: null, pages: 0 });
  // The quota is checked before the pages too, so a session past it costs no page writes (and again at commit).
  await checkQuota(storage.db, storage, session, logsJson.length);
  const logKey = randomUUID();
  try {
    const pages = await writePages(storage, session.id, logKey, logsJson);
    return await commitLog(storage, session, summary, logsJson.length, { body: '', logKey, pages });
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
 * serialised): posts sent at once cannot all read the same count and overrun the quota.
 */
async function checkQuota(trx: Db, storage: Storage, session: SessionRow, bytes: number): Promise<void> {
  if (storage.dialect === 'postgres') await trx.selectFrom('sessions').select('id').where('id', '=', session.id).forUpdate().execute();
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

/** The one transaction that stores a log (its body, or the key of its pages written before) and acknowledges it. */
async function commitLog(storage: Storage, session: SessionRow, summary: LogStateSummary, bytes: number, stored: { body: string; logKey: string | null; pages: number }): Promise<number> {
  const { id } = await storage.write(async (trx) => {
    await checkQuota(trx, storage, session, bytes);
    if (stored.logKey !== null) {
      // Every page must still be there (a sweep by a process started meanwhile, on the same SQLite file, takes the
      // pages of a log not committed yet): else nothing is acknowledged, and the page posts it again.
      const found = await trx.selectFrom('session_log_pages').select((eb) => eb.fn.countAll().as('n')).where('log_key', '=', stored.logKey).executeTakeFirstOrThrow();
      if (Number(found.n) !== stored.pages) throw new HttpError(503, 'LOG_PAGES_LOST', 'the pages of this log were removed before it was stored: send it again');
    }
    const row = await trx
      .insertInto('session_logs')
      .values({ session_id: session.id, body: stored.body, log_key: stored.logKey, bytes, state_classes: summary.classes, created_at: nowIso() })
      .returning('id')
      .executeTakeFirstOrThrow();
    // The phase the session reached, for the live statistics (a post without states leaves it as it was).
    if (summary.last) await trx.updateTable('sessions').set({ log_phase: JSON.stringify(summary.last) }).where('id', '=', session.id).execute();
    return row;
  });
  return id;
}

/** Page writes of the whole process, one after the other: 20 logs' pages in one group commit would be 5 MB again. */
let pageQueue: Promise<unknown> = Promise.resolve();

/** Writes the log's pages; returns how many. */
async function writePages(storage: Storage, sessionId: number, logKey: string, json: Buffer): Promise<number> {
  let pageNo = 0;
  for (let start = 0; start < json.length; pageNo++) {
    const end = pageEnd(json, start);
    const text = json.toString('utf8', start, end);
    const createdAt = nowIso();
    const write = pageQueue.then(() =>
      storage.write((trx) => trx.insertInto('session_log_pages').values({ session_id: sessionId, log_key: logKey, page_no: pageNo, text, created_at: createdAt }).execute(), { singleStatement: true }),
    );
    pageQueue = write.catch(() => undefined);
    await write;
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

/** Pages no log names are left this long to the node that writes them (PostgreSQL: several nodes). */
export const ORPHAN_PAGE_AGE_MS = 10 * 60 * 1000;

/**
 * Deletes the pages that no session log names and that were written before `olderThanMs` ago: those of posts a
 * killed process never committed. At start, SQLite (one server per file) takes them all; PostgreSQL leaves those
 * of the last minutes, which another node may still be writing, and sweeps again every ORPHAN_PAGE_AGE_MS.
 */
export async function sweepOrphanLogPages(storage: Storage, olderThanMs: number): Promise<number> {
  const cutoff = new Date(Date.now() - olderThanMs).toISOString();
  const result = await storage.write(
    (trx) =>
      trx
        .deleteFrom('session_log_pages')
        .where('created_at', '<=', cutoff)
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('session_logs as l').select(sql.lit(1).as('one')).whereRef('l.log_key', '=', 'session_log_pages.log_key'))))
        .executeTakeFirst(),
    { singleStatement: true },
  );
  return Number(result.numDeletedRows);
}
