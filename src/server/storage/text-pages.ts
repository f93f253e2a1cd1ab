import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql, type RawBuilder } from 'kysely';
import { HttpError } from '../errors.js';
import { nowIso, type Db, type Storage } from './types.js';

/**
 * Large JSON texts (session logs, bubble mouse logs) stored a page at a time (docs/security.md, "Large valid
 * bodies"). One 7.5 MB insert held SQLite (and the event loop with it) for 35-400 ms, and 20 of them queued in one
 * group commit far longer; a 256 KiB page takes a few milliseconds, and other writes run between two pages.
 */
export const LOG_PAGE_BYTES = 256 * 1024;

/** The tables of pages; each names its text by a key that one row of the owning table holds once committed. */
export type PageTable = 'session_log_pages' | 'mouse_log_pages';

/** The page tables, with the table whose rows name their pages (sweepOrphanPages). */
const OWNERS: Record<PageTable, 'session_logs' | 'screenings'> = { session_log_pages: 'session_logs', mouse_log_pages: 'screenings' };

/** The row that names the pages, written by `commit` in the transaction that acknowledges the text. */
export interface StoredPages {
  logKey: string;
  pages: number;
}

/**
 * Stores `json` in pages of `table`, then calls `commit` to write the row that names them: readers reach pages only
 * through that row, so they see whole texts or none, and nothing is acknowledged before that row is committed.
 * - PostgreSQL: `lock`, the pages and `commit` in one transaction (a killed process's transaction is rolled back);
 * - SQLite: each page its own commit (one transaction would hold the only connection, and every other write, for
 *   the whole text), then `commit`; pages no row names (a refused post, a killed process) are deleted at once or at
 *   the next start (sweepOrphanPages).
 * Whatever `commit` throws stores nothing. One paged text at a time in the process (see pagedWrites).
 */
export function storeInPages<T>(
  storage: Storage,
  table: PageTable,
  sessionId: number,
  json: Buffer,
  /** PostgreSQL only, first in the transaction: lock what the commit's checks read (the session's row). */
  lock: (trx: Db) => Promise<void>,
  commit: (trx: Db, stored: StoredPages) => Promise<T>,
): Promise<T> {
  const turn = pagedWrites.then(() => writeThenCommit(storage, table, sessionId, json, lock, commit));
  pagedWrites = turn.catch(() => undefined);
  return turn;
}

/**
 * Paged texts of the whole process, one after the other: 20 logs' pages written at once would fill one SQLite
 * group commit with 5 MB again, or hold 20 PostgreSQL connections that answers need.
 */
let pagedWrites: Promise<unknown> = Promise.resolve();

async function writeThenCommit<T>(storage: Storage, table: PageTable, sessionId: number, json: Buffer, lock: (trx: Db) => Promise<void>, commit: (trx: Db, stored: StoredPages) => Promise<T>): Promise<T> {
  const logKey = randomUUID();
  const insertPage = (trx: Db, page: PageValues) => trx.insertInto(table).values({ session_id: sessionId, log_key: logKey, ...page }).execute();
  if (storage.dialect === 'postgres') {
    return storage.write(async (trx) => {
      // The session's row is locked before the pages (whose foreign key takes a key-share lock on it): two posts of
      // one session then queue on that lock instead of deadlocking on an upgrade.
      await lock(trx);
      const pages = await writePages(json, (page) => insertPage(trx, page));
      return commitNamed(trx, table, { logKey, pages }, commit);
    });
  }
  try {
    const pages = await writePages(json, (page) => storage.write((trx) => insertPage(trx, page), { singleStatement: true }));
    return await storage.write((trx) => commitNamed(trx, table, { logKey, pages }, commit));
  } catch (error) {
    await storage.write((trx) => trx.deleteFrom(table).where('log_key', '=', logKey).execute(), { singleStatement: true }).catch(() => undefined);
    throw error;
  }
}

/**
 * Every page must be there (on SQLite, a process started meanwhile on the same file sweeps the pages of a text not
 * committed yet): else nothing is acknowledged, and the page posts it again.
 */
async function commitNamed<T>(trx: Db, table: PageTable, stored: StoredPages, commit: (trx: Db, stored: StoredPages) => Promise<T>): Promise<T> {
  const found = await trx.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('log_key', '=', stored.logKey).executeTakeFirstOrThrow();
  if (Number(found.n) !== stored.pages) throw new HttpError(503, 'LOG_PAGES_LOST', 'the pages of this log were removed before it was stored: send it again');
  return commit(trx, stored);
}

interface PageValues {
  page_no: number;
  text: RawBuilder<string>;
  created_at: string;
}

/**
 * Cuts the text into pages and writes each with `write`, the event loop free between two; returns how many. A page
 * goes to the driver as its UTF-8 bytes, cast to text by the database (SQLite copies them; PostgreSQL receives
 * text in binary form): decoding it into a JavaScript string for the driver to encode again cost the loop twice.
 */
async function writePages(json: Buffer, write: (page: PageValues) => Promise<unknown>): Promise<number> {
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

/** A paged text, its pages joined in order (exports, replays). */
export async function pagedText(db: Db, table: PageTable, logKey: string): Promise<string> {
  const pages = await db.selectFrom(table).select('text').where('log_key', '=', logKey).orderBy('page_no').execute();
  return pages.map((p) => p.text).join('');
}

/**
 * Deletes the pages that no row names: on SQLite, those of posts a killed process never committed (run at start:
 * one server writes to an SQLite file). On PostgreSQL there are none: uncommitted pages are rolled back, and this
 * statement does not see those of other nodes' transactions in progress.
 */
export async function sweepOrphanPages(storage: Storage): Promise<number> {
  let removed = 0;
  for (const [table, owner] of Object.entries(OWNERS) as Array<[PageTable, (typeof OWNERS)[PageTable]]>) {
    const result = await storage.write(
      (trx) =>
        trx
          .deleteFrom(table)
          .where(({ not, exists }) => not(exists(sql`(select 1 from ${sql.table(owner)} o where o.log_key = ${sql.ref(`${table}.log_key`)})`)))
          .executeTakeFirst(),
      { singleStatement: true },
    );
    removed += Number(result.numDeletedRows);
  }
  return removed;
}
