import pg from 'pg';
import type { DialectName } from '../src/server/storage/types.js';

/**
 * Forcing an interleaving on PostgreSQL (issue 37), with no hook in the product: a side transaction on its own
 * connection takes first the lock the racers need (a row FOR UPDATE, a LOCK TABLE), the racers are started, and
 * the side transaction commits only once PostgreSQL shows them all waiting behind it: then they all contend at that
 * point together. A racer counts as waiting when it waits for the side transaction, directly or through another
 * waiter (pg_blocking_pids, followed transitively: behind a row lock the later waiters queue on the first one), so
 * backends of other test runs on the same database are never counted.
 *
 * On SQLite there is nothing to force: one connection per process, writes serialised in-process (group-commit.ts).
 */

/** The connections of a Storage's PostgreSQL pool (open.ts, openPostgres): at most this many racers of one Storage wait at once. */
export const PG_POOL_CONNECTIONS = 10;

/** A lock held by a side transaction until release(). */
export interface HeldLock {
  /** The side transaction's backend. */
  pid: number;
  /** How many backends wait for the side transaction now, directly or transitively. */
  waiters(): Promise<number>;
  /** Polls waiters() until it reaches `expected` or `timeoutMs` passes; returns the last count. */
  waitFor(expected: number, timeoutMs?: number): Promise<number>;
  /** Commits the side transaction (the racers go on) and closes its connections. */
  release(): Promise<void>;
}

const WAITERS = `
  with recursive behind(pid) as (
    select a.pid from pg_stat_activity a where a.wait_event_type = 'Lock' and $1::integer = any(pg_blocking_pids(a.pid))
    union
    select a.pid from pg_stat_activity a join behind b on b.pid = any(pg_blocking_pids(a.pid)) where a.wait_event_type = 'Lock'
  )
  select count(*)::integer as n from behind`;

/**
 * Opens a side transaction on `databaseUrl` (a test database's URL: its search_path selects the test's schema) and
 * runs `lockSql` in it, statement by statement. A second connection watches pg_stat_activity (outside any
 * transaction: a transaction would keep one snapshot of it).
 */
export async function holdLock(databaseUrl: string, lockSql: string | readonly string[]): Promise<HeldLock> {
  const holder = new pg.Client({ connectionString: databaseUrl });
  const watcher = new pg.Client({ connectionString: databaseUrl });
  let pid: number;
  try {
    await holder.connect();
    await watcher.connect();
    pid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    await holder.query('begin');
    for (const text of typeof lockSql === 'string' ? [lockSql] : lockSql) await holder.query(text);
  } catch (error) {
    await Promise.allSettled([holder.end(), watcher.end()]);
    throw error;
  }
  const waiters = async () => (await watcher.query<{ n: number }>(WAITERS, [pid])).rows[0]!.n;
  let released = false;
  return {
    pid,
    waiters,
    async waitFor(expected, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const n = await waiters();
        if (n >= expected) return n;
        if (Date.now() >= deadline) {
          // What the database's other backends were doing: where the missing racers went.
          const { rows } = await watcher.query(
            `select pid, state, wait_event_type, wait_event, pg_blocking_pids(pid) as blocked_by, left(query, 120) as query
             from pg_stat_activity where datname = current_database() and pid not in (pg_backend_pid(), $1)`,
            [pid],
          );
          console.warn(`holdLock: ${n} of ${expected} waiting behind backend ${pid} after ${timeoutMs} ms`, rows);
          return n;
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async release() {
      if (released) return;
      released = true;
      try {
        await holder.query('commit');
      } finally {
        await Promise.allSettled([holder.end(), watcher.end()]);
      }
    },
  };
}

/**
 * Holds `lockSql` while `start` starts the racers, waits until `expectedWaiters` of them wait behind it, then lets
 * them all go at once. Returns the racers' results and how many were seen waiting together (the test asserts it:
 * fewer means the interleaving was not forced). The lock is released whatever happens, so no racer is left waiting.
 * `start` gets the held lock, to start racers one by one where each must reach the database on its own.
 */
export async function holdWhile<T>(
  databaseUrl: string,
  lockSql: string | readonly string[],
  start: (held: HeldLock) => Array<Promise<T>> | Promise<Array<Promise<T>>>,
  expectedWaiters: number,
  timeoutMs = 10_000,
): Promise<{ results: T[]; waiting: number }> {
  const held = await holdLock(databaseUrl, lockSql);
  let racers: Array<Promise<T>> = [];
  let waiting = 0;
  try {
    racers = await start(held);
    // Settled later by Promise.all; meanwhile a rejection must not count as unhandled.
    for (const racer of racers) racer.catch(() => undefined);
    waiting = await held.waitFor(expectedWaiters, timeoutMs);
  } finally {
    await held.release();
  }
  return { results: await Promise.all(racers), waiting };
}

/** The test's database, as useServer's context gives it. */
export interface RaceContext {
  dialect: DialectName;
  database: { url: string };
}

/**
 * The racers contending at `lockSql` on PostgreSQL (holdWhile, `waiting` their number seen waiting together); on
 * SQLite started together, with nothing to force (`waiting` null): the SQLite run checks the outcome of the same
 * racers in the order its serialised writes give.
 */
export async function contendAt<T>(
  ctx: RaceContext,
  lockSql: string | readonly string[],
  expectedWaiters: number,
  start: () => Array<Promise<T>>,
  timeoutMs?: number,
): Promise<{ results: T[]; waiting: number | null }> {
  if (ctx.dialect !== 'postgres') return { results: await Promise.all(start()), waiting: null };
  return holdWhile(ctx.database.url, lockSql, start, expectedWaiters, timeoutMs);
}

/**
 * For holdWhile's `start`: starts `count` racers one by one, each once the ones before it wait behind the held lock
 * (until `waiters` of them do), then the rest together. Racers that would otherwise share one statement (the ratings
 * of one event-loop turn share one INSERT, answer-batch.ts) then reach the database each in its own.
 */
export async function oneByOne<T>(held: HeldLock, count: number, waiters: number, start: (i: number) => Promise<T>): Promise<Array<Promise<T>>> {
  const racers: Array<Promise<T>> = [];
  for (let i = 0; i < count; i++) {
    const racer = start(i);
    racer.catch(() => undefined);
    racers.push(racer);
    if (i < waiters) {
      const n = await held.waitFor(i + 1);
      if (n !== i + 1) throw new Error(`after racer ${i + 1} of ${count}, ${n} wait behind the held lock, not ${i + 1}`);
    }
  }
  return racers;
}
