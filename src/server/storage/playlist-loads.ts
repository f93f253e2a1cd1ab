import { sql } from 'kysely';
import { type Db, type SessionRow, type Storage } from './types.js';

/**
 * The balancing counts of each playlist (README "Deployment on several nodes"), kept as sessions start, complete
 * and get their verdicts, so that choosing a playlist reads one row per playlist instead of counting the job's
 * sessions. A playlist's load is `included` (completed sessions not excluded by quality control, a session without
 * a verdict counting) plus `running` (uncompleted sessions within the lease): the same figure the count gave.
 *
 * The lease is swept at each arrival: uncompleted sessions created between the job's `swept_until` and the new
 * lease cutoff leave `running` (an index range over the sessions that crossed the lease since the last arrival).
 *
 * Locking (PostgreSQL): an arrival locks the job's `job_loads` row FOR UPDATE for its decision (sweep, choice,
 * insert); a completion or a verdict that changes a count takes it FOR SHARE (they do not wait on each other, only
 * on an arrival's few statements). Every transaction takes `job_loads` before `playlist_loads` rows.
 */

export interface PlaylistLoad {
  id: number;
  /** Completed sessions included by quality control, plus sessions still running within the lease. */
  load: number;
  /** Sessions ever created (not previews). */
  sessions: number;
}

const leaseCutoff = (leaseMinutes: number) => new Date(Date.now() - leaseMinutes * 60_000).toISOString();

async function lockLoads(storage: Storage, trx: Db, jobId: string, mode: 'update' | 'share'): Promise<{ swept_until: string } | undefined> {
  const query = trx.selectFrom('job_loads').select('swept_until').where('job_id', '=', jobId);
  if (storage.dialect !== 'postgres') return query.executeTakeFirst();
  return (mode === 'update' ? query.forUpdate() : query.forShare()).executeTakeFirst();
}

/**
 * Counts the job's playlists anew from its sessions and verdicts (a new job, an import that changed its playlists,
 * a withdrawal, a re-judgement). Keeps the job's lease sweep point; a job counted for the first time starts from
 * the beginning, and its first arrival sweeps up to the lease.
 */
export async function rebuildLoads(storage: Storage, trx: Db, jobId: string): Promise<void> {
  await trx.insertInto('job_loads').values({ job_id: jobId, swept_until: '' }).onConflict((oc) => oc.column('job_id').doNothing()).execute();
  const { swept_until } = (await lockLoads(storage, trx, jobId, 'update'))!;
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
  await trx.deleteFrom('playlist_loads').where('job_id', '=', jobId).execute();
  if (counts.length > 0) {
    await trx
      .insertInto('playlist_loads')
      .values(counts.map((c) => ({ playlist_id: c.playlist_id, job_id: jobId, sessions: Number(c.sessions), included: Number(c.included), running: Number(c.running) })))
      .execute();
  }
}

/** Recounts the job's loads when they exist (after a withdrawal or a re-judgement changed sessions or verdicts). */
export async function recountLoads(storage: Storage, trx: Db, jobId: string): Promise<void> {
  if (await lockLoads(storage, trx, jobId, 'update')) await rebuildLoads(storage, trx, jobId);
}

/**
 * The arrival's decision, inside its write transaction: locks the job's counts, sweeps the lease, and returns each
 * playlist's load. The caller chooses, inserts the session and calls `countNewSession` before committing.
 */
export async function lockedLoads(storage: Storage, trx: Db, jobId: string, leaseMinutes: number): Promise<PlaylistLoad[]> {
  let row = await lockLoads(storage, trx, jobId, 'update');
  if (!row) {
    await rebuildLoads(storage, trx, jobId);
    row = { swept_until: '' };
  }
  const cutoff = leaseCutoff(leaseMinutes);
  if (cutoff > row.swept_until) {
    const expired = await trx
      .selectFrom('sessions')
      .select(['playlist_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('job_id', '=', jobId)
      .where('created_at', '>', row.swept_until)
      .where('created_at', '<=', cutoff)
      .where('completed_at', 'is', null)
      .where('preview', '=', 0)
      .groupBy('playlist_id')
      .execute();
    for (const e of expired) {
      await trx.updateTable('playlist_loads').set((eb) => ({ running: eb('running', '-', Number(e.n)) })).where('playlist_id', '=', e.playlist_id).execute();
    }
    await trx.updateTable('job_loads').set({ swept_until: cutoff }).where('job_id', '=', jobId).execute();
  }
  const loads = await trx.selectFrom('playlist_loads').select(['playlist_id', 'sessions', 'included', 'running']).where('job_id', '=', jobId).execute();
  return loads.map((l) => ({ id: l.playlist_id, load: Number(l.included) + Number(l.running), sessions: Number(l.sessions) }));
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

/** A session completed: included until a verdict says otherwise, and no longer running unless the lease swept it. */
export async function countCompletion(storage: Storage, trx: Db, session: Pick<SessionRow, 'job_id' | 'playlist_id' | 'created_at'>): Promise<void> {
  const row = await lockLoads(storage, trx, session.job_id, 'share');
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
  if (!(await lockLoads(storage, trx, session.job_id, 'share'))) return;
  await trx.updateTable('playlist_loads').set((eb) => ({ included: eb('included', '+', delta) })).where('playlist_id', '=', session.playlist_id).execute();
}
