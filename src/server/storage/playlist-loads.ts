import { sql } from 'kysely';
import { type Db, type SessionRow, type Storage } from './types.js';

/**
 * The balancing counts of each playlist (docs/data-safety.md "Deployment on several nodes"), kept as sessions start,
 * complete and get their verdicts, so that choosing a playlist reads one row per playlist instead of counting the job's
 * sessions. A playlist's load is `included` (completed sessions not excluded by quality control, a session without
 * a verdict counting) plus `running` (uncompleted sessions within the lease): the same figure the count gave.
 *
 * The lease is swept at arrivals (at most every SWEEP_EVERY_MS): uncompleted sessions created between the job's
 * `swept_until` and the new lease cutoff leave `running` (an index range over the sessions that crossed the lease
 * since the last sweep).
 *
 * Locking (PostgreSQL): an arrival or a recount locks the job's `job_loads` row FOR UPDATE (sweep, choice, insert;
 * or the count). An arrival does it inside one call of the database function `glimpse_open_session` (migration
 * 017, the twin of `lockedLoads` and sessions.ts's SQLite path), so the lock never waits on a round trip. A
 * completion or a verdict does not touch that lock (at 2,000 arrivals on 2 nodes, waiting for it was 78 % of
 * PostgreSQL's statement time when they took it FOR SHARE): each adds to its playlist's counts, a row update, and
 * the row locks decide the races:
 * - sweep and completion: the sweep locks the expired sessions' rows (FOR NO KEY UPDATE) before it counts them, and
 *   a completion updates its session's row before it reads `swept_until`; whichever locks the session first, the
 *   other sees its commit (a completed session is not swept; a swept session's completion reads the new
 *   `swept_until`), so `running` loses each session once;
 * - recount and increments: a recount locks the job's count rows before it counts, and writes its counts into the
 *   same rows (never deletes and re-inserts them), so an increment committed before it is in its count and one
 *   waiting for its row lands on the recounted row.
 *
 * LOCK ORDER (PostgreSQL; SQLite has one writer at a time), the one order of every transaction that writes a job's
 * counters: it takes the rows it needs in these steps, skips those it does not need, never goes back to an earlier
 * one, and so never waits for a transaction that waits for it:
 *   1. `job_loads` (jobs by id): arrivals (`lockedLoads`, `glimpse_open_session`), recounts, withdrawals, the
 *      re-judge's verdicts (screening.ts);
 *   2. the rows of the sessions written, then their `session_verdicts`: a completion, a withdrawal's deletes, a
 *      verdict (its foreign key locks the session);
 *   3. `playlist_loads` (by playlist id): arrivals, completions, recounts, verdicts (`adjustIncluded`);
      then `adaptive_pending` (pairs in key order): an adaptive design's arrivals (after their sweep; the rows they
      create later, the participant's playlist, its count row and session, are new and block no one) and first
      verdicts (adaptive.ts);
 *   4. `accepted_sessions` (jobs by id), then `accepted_score_sums`: verdicts (quality-sums.ts `moveSession`), sums
 *      rebuilds, withdrawals (`markSumsStale`).
 * `lockCounters` takes steps 1, 3 and 4 for a set of jobs; a verdict that changes both counts updates its
 * playlist's before the job's sums.
 */

export interface PlaylistLoad {
  id: number;
  /** Completed sessions included by quality control, plus sessions still running within the lease. */
  load: number;
  /** Sessions ever created (not previews). */
  sessions: number;
}

export const leaseCutoff = (leaseMinutes: number) => new Date(Date.now() - leaseMinutes * 60_000).toISOString();

/** The job's sweep point; `lock`: FOR UPDATE on PostgreSQL (SQLite serialises writers). */
async function readLoads(storage: Storage, trx: Db, jobId: string, lock: boolean): Promise<{ swept_until: string } | undefined> {
  const query = trx.selectFrom('job_loads').select('swept_until').where('job_id', '=', jobId);
  return (lock && storage.dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}

/**
 * Counts the job's playlists anew from its sessions and verdicts (a new job, an import that changed its playlists,
 * a withdrawal, a re-judgement). Keeps the job's lease sweep point; a job counted for the first time starts from
 * the beginning, and its first arrival sweeps up to the lease.
 */
export async function rebuildLoads(storage: Storage, trx: Db, jobId: string): Promise<void> {
  await trx.insertInto('job_loads').values({ job_id: jobId, swept_until: '' }).onConflict((oc) => oc.column('job_id').doNothing()).execute();
  const { swept_until } = (await readLoads(storage, trx, jobId, true))!;
  // Completions and verdicts in flight commit before the count (their increments are in it) or wait for the recount.
  await lockCounters(storage, trx, [jobId], ['playlist_loads']);
  const counts = await trx
    .selectFrom('playlists as p')
    .leftJoin('sessions as s', (join) => join.onRef('s.playlist_id', '=', 'p.id').on('s.preview', '=', 0))
    .leftJoin('session_verdicts as v', 'v.session_id', 's.id')
    .select([
      'p.id as playlist_id',
      sql<number>`cast(count(s.id) as integer)`.as('sessions'),
      sql<number>`cast(coalesce(sum(case when s.completed_at is not null and coalesce(v.included, 1) = 1 then 1 else 0 end), 0) as integer)`.as('included'),
      sql<number>`cast(coalesce(sum(case when s.completed_at is null and s.created_at > ${swept_until} then 1 else 0 end), 0) as integer)`.as('running'),
    ])
    .where('p.job_id', '=', jobId)
    .groupBy('p.id')
    .execute();
  // Written into the same rows: an increment waiting for a row's lock then adds to the recounted value.
  if (counts.length > 0) {
    await trx
      .insertInto('playlist_loads')
      .values(counts.map((c) => ({ playlist_id: c.playlist_id, job_id: jobId, sessions: Number(c.sessions), included: Number(c.included), running: Number(c.running) })))
      .onConflict((oc) =>
        oc.column('playlist_id').doUpdateSet((eb) => ({ sessions: eb.ref('excluded.sessions'), included: eb.ref('excluded.included'), running: eb.ref('excluded.running') })),
      )
      .execute();
  }
  const playlists = counts.map((c) => c.playlist_id);
  let gone = trx.deleteFrom('playlist_loads').where('job_id', '=', jobId);
  if (playlists.length > 0) gone = gone.where('playlist_id', 'not in', playlists);
  await gone.execute();
}

/** The counter tables of a job, in the lock order (above): steps 1, 3 and 4. */
export const COUNTER_LOCK_ORDER = ['job_loads', 'playlist_loads', 'accepted_sessions'] as const;
export type CounterTable = (typeof COUNTER_LOCK_ORDER)[number];

/**
 * Locks these jobs' rows of the given counter tables FOR UPDATE in the lock order (PostgreSQL; nothing on SQLite,
 * whose writer holds the whole database). Jobs one by one in JavaScript's order and playlists by id, so two
 * transactions always meet the rows in the same order. A transaction calls it again for later steps only.
 */
export async function lockCounters(storage: Storage, trx: Db, jobIds: readonly string[], tables: readonly CounterTable[]): Promise<void> {
  if (storage.dialect !== 'postgres') return;
  const jobs = [...new Set(jobIds)].sort();
  for (const table of COUNTER_LOCK_ORDER) {
    if (!tables.includes(table)) continue;
    for (const jobId of jobs) {
      if (table === 'playlist_loads') await trx.selectFrom('playlist_loads').select('playlist_id').where('job_id', '=', jobId).orderBy('playlist_id').forUpdate().execute();
      else await trx.selectFrom(table).select('job_id').where('job_id', '=', jobId).forUpdate().execute();
    }
  }
}

/** Recounts the job's loads when they exist (after a withdrawal or a re-judgement changed sessions or verdicts). */
export async function recountLoads(storage: Storage, trx: Db, jobId: string): Promise<void> {
  if (await readLoads(storage, trx, jobId, true)) await rebuildLoads(storage, trx, jobId);
}

/**
 * Sessions that crossed the lease are taken off `running` at an arrival at most this long after the previous sweep
 * (each sweep is two more statements under the job's lock; at 16 arrivals a second most arrivals skip it): a
 * session counts as running for at most its lease plus this.
 */
export const SWEEP_EVERY_MS = 5000;

/**
 * The arrival's decision, inside its write transaction: locks the job's counts, sweeps the lease when due, and
 * returns each playlist's load. The caller chooses, inserts the session and calls `countNewSession` before
 * committing. The counts are read by a statement of their own after the lock is held: on PostgreSQL a statement that
 * both waited for the lock and joined the counts would return the counts as they were before it waited.
 */
export async function lockedLoads(storage: Storage, trx: Db, jobId: string, leaseMinutes: number): Promise<PlaylistLoad[]> {
  await lockJobLoads(storage, trx, jobId, leaseMinutes);
  const loads = await trx.selectFrom('playlist_loads').select(['playlist_id', 'sessions', 'included', 'running']).where('job_id', '=', jobId).execute();
  return loads.map((l) => ({ id: l.playlist_id, load: Number(l.included) + Number(l.running), sessions: Number(l.sessions) }));
}

/**
 * The arrival's lock without the choice among playlists (an adaptive design makes the participant's own): locks the
 * job's counts and sweeps the lease when due.
 */
export async function lockJobLoads(storage: Storage, trx: Db, jobId: string, leaseMinutes: number): Promise<void> {
  let row = await readLoads(storage, trx, jobId, true);
  if (!row) {
    await rebuildLoads(storage, trx, jobId);
    row = { swept_until: '' };
  }
  const cutoff = leaseCutoff(leaseMinutes);
  if (row.swept_until === '' || Date.parse(cutoff) - Date.parse(row.swept_until) >= SWEEP_EVERY_MS) await sweepLease(storage, trx, jobId, row.swept_until, cutoff);
}

/** Takes the sessions created in (sweptUntil, cutoff] and still uncompleted off `running`. */
async function sweepLease(storage: Storage, trx: Db, jobId: string, sweptUntil: string, cutoff: string): Promise<void> {
  let expiredQuery = trx
    .selectFrom('sessions')
    .select('playlist_id')
    .where('job_id', '=', jobId)
    .where('created_at', '>', sweptUntil)
    .where('created_at', '<=', cutoff)
    .where('completed_at', 'is', null)
    .where('preview', '=', 0);
  // The expired sessions' rows locked: one completing meanwhile commits first and is no longer expired.
  if (storage.dialect === 'postgres') expiredQuery = expiredQuery.forNoKeyUpdate();
  const expired = new Map<number, number>();
  for (const { playlist_id } of await expiredQuery.execute()) expired.set(playlist_id, (expired.get(playlist_id) ?? 0) + 1);
  for (const [playlistId, n] of [...expired].sort(([a], [b]) => a - b)) {
    await trx.updateTable('playlist_loads').set((eb) => ({ running: eb('running', '-', n) })).where('playlist_id', '=', playlistId).execute();
  }
  await trx.updateTable('job_loads').set({ swept_until: cutoff }).where('job_id', '=', jobId).execute();
}

/**
 * The playlist that should get the next participant: the lowest load (a rejected or excluded session's playlist
 * needs another observer), ties to the fewest sessions ever, then the lowest id. `playlistId` restricts the choice.
 */
export function leastLoaded(loads: readonly PlaylistLoad[], playlistId: number | null): PlaylistLoad | null {
  let best: PlaylistLoad | null = null;
  for (const l of loads) {
    if (playlistId !== null && l.id !== playlistId) continue;
    if (!best || l.load < best.load || (l.load === best.load && (l.sessions < best.sessions || (l.sessions === best.sessions && l.id < best.id)))) best = l;
  }
  return best;
}

/** A session was created on this playlist: one more session, running. */
export async function countNewSession(trx: Db, playlistId: number): Promise<void> {
  await trx
    .updateTable('playlist_loads')
    .set((eb) => ({ sessions: eb('sessions', '+', 1), running: eb('running', '+', 1) }))
    .where('playlist_id', '=', playlistId)
    .execute();
}

/**
 * A session completed: included until a verdict says otherwise, and no longer running unless the lease swept it.
 * Called after the session's row was updated in the same transaction (its lock decides the race with a sweep).
 */
export async function countCompletion(storage: Storage, trx: Db, session: Pick<SessionRow, 'job_id' | 'playlist_id' | 'created_at'>): Promise<void> {
  const row = await readLoads(storage, trx, session.job_id, false);
  if (!row) return;
  const stillRunning = session.created_at > row.swept_until ? 1 : 0;
  await trx
    .updateTable('playlist_loads')
    .set((eb) => ({ included: eb('included', '+', 1), running: eb('running', '-', stillRunning) }))
    .where('playlist_id', '=', session.playlist_id)
    .execute();
}

/** A verdict moved a completed session in (1) or out (-1) of the analysis. */
export async function adjustIncluded(storage: Storage, trx: Db, session: Pick<SessionRow, 'job_id' | 'playlist_id'>, delta: 1 | -1): Promise<void> {
  if (!(await readLoads(storage, trx, session.job_id, false))) return;
  await trx.updateTable('playlist_loads').set((eb) => ({ included: eb('included', '+', delta) })).where('playlist_id', '=', session.playlist_id).execute();
}
