import type { LogStateSummary } from '../body/log-summary.mjs';
import { HttpError } from '../errors.js';
import { LOG_PAGE_BYTES, pagedText, storeInPages } from './text-pages.js';
import { nowIso, type Db, type SessionRow, type Storage } from './types.js';

export { LOG_PAGE_BYTES };

/** What one session may store as interaction logs (docs/security.md "Quotas"): the page posts once or twice per load. */
export const SESSION_LOGS_QUOTA = { posts: 100, bytes: 32 * 1024 * 1024, afterCompletionMs: 60 * 60 * 1000 };

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
 *   the next start (text-pages.ts, shared with mouse logs).
 */
export async function storeSessionLogs(storage: Storage, session: SessionRow, logsJson: Buffer, summary: LogStateSummary): Promise<number> {
  refuseAfterCompletion(session);
  const bytes = logsJson.length;
  if (bytes <= LOG_PAGE_BYTES) return storage.write((trx) => commitLog(trx, storage, session, summary, bytes, { body: logsJson.toString('utf8'), logKey: null }));
  // Refused before its turn and its pages when the session is past its quota already (checked again at commit).
  await checkQuota(storage.db, storage, session, bytes, false);
  return storeInPages(
    storage,
    'session_log_pages',
    session.id,
    logsJson,
    (trx) => checkQuota(trx, storage, session, bytes),
    (trx, { logKey }) => commitLog(trx, storage, session, summary, bytes, { body: '', logKey }),
  );
}

function refuseAfterCompletion(session: SessionRow): void {
  if (session.completed_at && Date.now() - Date.parse(session.completed_at) > SESSION_LOGS_QUOTA.afterCompletionMs) {
    throw new HttpError(429, 'LOGS_QUOTA', 'this session was completed over an hour ago and takes no more logs');
  }
}

/**
 * Counted in the transaction that writes, after locking the session's row (PostgreSQL; SQLite's writes are
 * serialised): posts sent at once cannot all read the same count and overrun the quota. FOR NO KEY UPDATE: the
 * answers of the session (whose foreign key takes a key-share lock on that row) never wait for a log. `lock` false:
 * the early check of a paged log, outside any transaction, which the commit's check repeats under the lock.
 */
async function checkQuota(trx: Db, storage: Storage, session: SessionRow, bytes: number, lock = true): Promise<void> {
  if (lock && storage.dialect === 'postgres') await trx.selectFrom('sessions').select('id').where('id', '=', session.id).forNoKeyUpdate().execute();
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
async function commitLog(trx: Db, storage: Storage, session: SessionRow, summary: LogStateSummary, bytes: number, stored: { body: string; logKey: string | null }): Promise<number> {
  await checkQuota(trx, storage, session, bytes);
  const { id } = await trx
    .insertInto('session_logs')
    .values({ session_id: session.id, body: stored.body, log_key: stored.logKey, bytes, state_classes: summary.classes, created_at: nowIso() })
    .returning('id')
    .executeTakeFirstOrThrow();
  // The phase the session reached, for the live statistics (a post without states leaves it as it was).
  if (summary.last) await trx.updateTable('sessions').set({ log_phase: JSON.stringify(summary.last) }).where('id', '=', session.id).execute();
  return id;
}

/** A paged log's text, its pages joined in order (exports). */
export const pagedLogBody = (storage: Storage, logKey: string) => pagedText(storage.db, 'session_log_pages', logKey);
