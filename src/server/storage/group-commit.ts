import { CompiledQuery } from 'kysely';
import type { Db } from './types.js';

// Compiled once: these run for every batch and every multi-statement write.
const BEGIN_IMMEDIATE = CompiledQuery.raw('begin immediate');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');
const SAVEPOINT = CompiledQuery.raw('savepoint w');
const RELEASE = CompiledQuery.raw('release w');
const ROLLBACK_TO = CompiledQuery.raw('rollback to w');

interface PendingWrite {
  work: (trx: Db) => Promise<unknown>;
  /** One statement is atomic by itself (a failed one is undone alone): no savepoint needed. */
  singleStatement: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for SQLite. Every COMMIT writes the touched pages to the WAL (and with synchronous=FULL fsyncs it,
 * 0.1 to 1 ms here) while better-sqlite3 blocks the event loop, so writes queued during one event-loop turn run in
 * ONE transaction, each in its own savepoint, and all of them are answered after that single commit. Nothing is
 * acknowledged before the commit returns; if the commit fails every write of the batch fails.
 */
export class GroupCommit {
  private queue: PendingWrite[] = [];
  private scheduled = false;

  constructor(private readonly db: Db) {}

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
    const batch = this.queue;
    this.queue = [];
    this.scheduled = false;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      // db.connection() holds SQLite's single connection (Kysely's mutex) for the whole batch.
      await this.db.connection().execute(async (conn) => {
        // IMMEDIATE takes the write lock up front, so a write never fails half-way on a lock upgrade
        // when another process (the CLI) writes too; busy_timeout makes it wait instead.
        await conn.executeQuery(BEGIN_IMMEDIATE);
        try {
          for (const item of batch) {
            if (item.singleStatement) {
              outcomes.push(await item.work(conn).then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error })));
              continue;
            }
            await conn.executeQuery(SAVEPOINT);
            try {
              outcomes.push({ ok: true, value: await item.work(conn) });
              await conn.executeQuery(RELEASE);
            } catch (error) {
              await conn.executeQuery(ROLLBACK_TO);
              await conn.executeQuery(RELEASE);
              outcomes.push({ ok: false, error });
            }
          }
          await conn.executeQuery(COMMIT);
        } catch (error) {
          await conn.executeQuery(ROLLBACK).catch(() => undefined);
          throw error;
        }
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }
}
