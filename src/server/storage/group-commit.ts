import { CompiledQuery } from 'kysely';
import type { Db } from './types.js';

// Compiled once: these run for every batch and every multi-statement write.
const BEGIN_IMMEDIATE = CompiledQuery.raw('begin immediate');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');
const SAVEPOINT = CompiledQuery.raw('savepoint w');
const RELEASE = CompiledQuery.raw('release w');
const ROLLBACK_TO = CompiledQuery.raw('rollback to w');
const BEGIN = CompiledQuery.raw('begin');

interface PendingWrite {
  work: (trx: Db) => Promise<unknown>;
  /** One statement is atomic by itself (a failed one is undone alone): no savepoint needed. */
  singleStatement: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** What makes a returned COMMIT durable before it is acknowledged (WalSync), when the connection does not. */
export interface CommitDurability {
  /** Non-null when writes must be refused without even trying (the disk failed a sync). */
  readonly refusal: Error | null;
  /** The sync in progress, if any. */
  readonly syncing: Promise<void> | null;
  /** Resolves once the commit that just returned is on disk; rejects when it cannot be made so. */
  afterCommit(): Promise<void>;
}

/**
 * Group commit for SQLite. Every COMMIT writes the touched pages to the WAL (and with synchronous=FULL fsyncs it,
 * 0.1 to 1 ms here) while better-sqlite3 blocks the event loop, so writes queued during one event-loop turn run in
 * ONE transaction, each in its own savepoint, and all of them are answered after that single commit. Nothing is
 * acknowledged before the commit returns and, with `durability` (SQLITE_SYNCHRONOUS=DURABLE), before the WAL is
 * synced: that sync runs off the event loop, which keeps parsing the next writes meanwhile. If the commit or the
 * sync fails, every write of the batch fails.
 *
 * A failed statement usually undoes itself (or its savepoint), and the batch goes on. But SQLITE_FULL, SQLITE_IOERR,
 * SQLITE_NOMEM or SQLITE_BUSY may roll the WHOLE transaction back (sqlite.org/lang_transaction.html; a full disk
 * met while the page cache spills does): the next writes would then run in autocommit, each stored at once, while
 * the batch reports them all failed. So after a failed statement the batch checks that it is still in its
 * transaction, and if not, every write of it fails before any further statement runs.
 */
/**
 * Another process holding SQLite's write lock (the CLI importing, screening or withdrawing) is waited for here, off
 * the event loop: the batch's BEGIN does not wait (beginImmediateNow: it fails at once when the lock is taken), and the
 * batch tries again after a pause that doubles up to BUSY_PAUSE_MAX_MS, while new writes join it. With SQLite's own
 * busy timeout of 5 s the event loop itself waited, and every participant's request with it (issue 34). Past
 * BUSY_GIVE_UP_MS the batch fails (503 STORAGE_UNAVAILABLE: the pages send again).
 */
export const BUSY_PAUSE_MAX_MS = 5;
export const BUSY_GIVE_UP_MS = 30_000;

/** SQLite's answer when another connection holds the lock this one needs. */
const isBusy = (error: unknown) => /^SQLITE_BUSY/.test(String((error as { code?: unknown })?.code ?? ''));

export class GroupCommit {
  private queue: PendingWrite[] = [];
  private scheduled = false;
  /** When the current batch first met another process's write lock, and the pause before its next try. */
  private busy: { since: number; pauseMs: number } | null = null;

  constructor(
    private readonly db: Db,
    private readonly durability: CommitDurability | null = null,
    private readonly connection: {
      /** The connection's own answer (better-sqlite3 `inTransaction`); without it, SQLite is asked by a statement. */
      inTransaction?: () => boolean;
      /** BEGIN IMMEDIATE without SQLite's busy wait (it fails at once when another process writes); else a plain one. */
      beginImmediateNow?: () => void;
    } = {},
  ) {}

  submit<T>(work: (trx: Db) => Promise<T>, singleStatement = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, singleStatement, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate runs after the current poll phase, so requests parsed in the same turn share the commit.
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    // Writes that arrive while the disk syncs earlier commits wait for that sync anyway (theirs comes next): gather
    // them into ONE commit when it ends rather than several small ones, each costing CPU on the event loop.
    await this.durability?.syncing?.catch(() => undefined);
    const batch = this.queue;
    this.queue = [];
    this.scheduled = false;
    const refusal = this.durability?.refusal;
    if (refusal) {
      for (const item of batch) item.reject(refusal);
      return;
    }
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      // db.connection() holds SQLite's single connection (Kysely's mutex) for the whole batch.
      await this.db.connection().execute(async (conn) => {
        // IMMEDIATE takes the write lock up front, so a write never fails half-way on a lock upgrade when another
        // process (the CLI) writes too; if that process holds it, the batch waits its turn (BUSY_PAUSE_MAX_MS).
        if (this.connection.beginImmediateNow) this.connection.beginImmediateNow();
        else await conn.executeQuery(BEGIN_IMMEDIATE);
        try {
          for (const item of batch) {
            if (item.singleStatement) {
              const outcome = await item.work(conn).then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));
              if (!outcome.ok && !(await this.stillInTransaction(conn))) throw outcome.error;
              outcomes.push(outcome);
              continue;
            }
            await conn.executeQuery(SAVEPOINT);
            try {
              outcomes.push({ ok: true, value: await item.work(conn) });
              await conn.executeQuery(RELEASE);
            } catch (error) {
              if (!(await this.stillInTransaction(conn))) throw error;
              await conn.executeQuery(ROLLBACK_TO);
              await conn.executeQuery(RELEASE);
              outcomes.push({ ok: false, error });
            }
          }
          await conn.executeQuery(COMMIT);
        } catch (error) {
          // Fails harmlessly when SQLite rolled back already.
          await conn.executeQuery(ROLLBACK).catch(() => undefined);
          throw error;
        }
      });
    } catch (error) {
      if (outcomes.length === 0 && isBusy(error) && this.waitForLock(batch)) return;
      this.busy = null;
      for (const item of batch) item.reject(error);
      return;
    }
    this.busy = null;
    // The connection is released: the next batch commits while this one waits for the disk.
    const notDurable = this.durability ? await this.durability.afterCommit().then(() => null, (error: unknown) => ({ error })) : null;
    batch.forEach((item, i) => {
      const outcome = outcomes[i];
      // A write that failed on its own keeps its own error (it stored nothing); the others are not acknowledged.
      if (!outcome.ok) item.reject(outcome.error);
      else if (notDurable) item.reject(notDurable.error);
      else item.resolve(outcome.value);
    });
  }

  /**
   * The batch found the write lock taken before it began (nothing of it ran): it goes back to the head of the
   * queue, and the queue is flushed again after a pause. False once it has waited BUSY_GIVE_UP_MS.
   */
  private waitForLock(batch: PendingWrite[]): boolean {
    const now = performance.now();
    this.busy = this.busy ? { since: this.busy.since, pauseMs: Math.min(this.busy.pauseMs * 2, BUSY_PAUSE_MAX_MS) } : { since: now, pauseMs: 1 };
    if (now - this.busy.since > BUSY_GIVE_UP_MS) return false;
    this.queue = batch.concat(this.queue);
    this.scheduled = true;
    setTimeout(() => void this.flush(), this.busy.pauseMs);
    return true;
  }

  /** Whether the batch's transaction is still open after a failed statement (SQLite may have rolled it back). */
  private async stillInTransaction(conn: Db): Promise<boolean> {
    if (this.connection.inTransaction) return this.connection.inTransaction();
    // BEGIN fails inside a transaction; outside, it opens one, closed at once (nothing was written in it).
    try {
      await conn.executeQuery(BEGIN);
    } catch {
      return true;
    }
    await conn.executeQuery(ROLLBACK);
    return false;
  }
}
