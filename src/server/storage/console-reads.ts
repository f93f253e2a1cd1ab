import { sql } from 'kysely';
import type { Storage } from './types.js';

/**
 * The console's reads (docs/console.md): live progress per playlist, session times, verdicts, where unfinished
 * sessions stopped, the participants table and export row counts. Plain rows; src/server/console shapes them.
 */

export interface PlaylistCounts {
  /** 0 for the row of an adaptive design's participants' own playlists. */
  id: number;
  /** -1 for that row. */
  position: number;
  started: number;
  running: number;
  completed: number;
  accepted: number;
  rejected: number;
}

const count = (n: unknown) => Number(n ?? 0);

/**
 * Sessions per playlist: started, running (not completed and begun after `runningSince`), completed, judged. The
 * playlists an adaptive design made for one participant each are one row (id 0, position -1).
 * Here and in every statistic below, a researcher's previews are left out (docs/console.md).
 */
export async function playlistCounts(storage: Storage, jobId: string, runningSince: string): Promise<PlaylistCounts[]> {
  const rows = await storage.db
    .selectFrom('playlists as p')
    .leftJoin('sessions as s', (join) => join.onRef('s.playlist_id', '=', 'p.id').on('s.preview', '=', 0))
    .leftJoin('session_verdicts as v', 'v.session_id', 's.id')
    .select([
      sql<number>`case when p.adaptive = 1 then 0 else p.id end`.as('id'),
      sql<number>`case when p.adaptive = 1 then -1 else p.position end`.as('position'),
      sql<number>`count(s.id)`.as('started'),
      sql<number>`sum(case when s.completed_at is null and s.created_at > ${runningSince} then 1 else 0 end)`.as('running'),
      sql<number>`sum(case when s.completed_at is not null then 1 else 0 end)`.as('completed'),
      sql<number>`sum(case when s.completed_at is not null and v.accepted = 1 then 1 else 0 end)`.as('accepted'),
      sql<number>`sum(case when v.accepted = 0 then 1 else 0 end)`.as('rejected'),
    ])
    .where('p.job_id', '=', jobId)
    .groupBy([sql`case when p.adaptive = 1 then 0 else p.id end`, sql`case when p.adaptive = 1 then -1 else p.position end`])
    .orderBy('position')
    .execute();
  return rows.map((p) => ({
    id: Number(p.id),
    position: Number(p.position),
    started: count(p.started),
    running: count(p.running),
    completed: count(p.completed),
    accepted: count(p.accepted),
    rejected: count(p.rejected),
  }));
}

/** When each session of a job began and completed. */
export async function sessionTimes(storage: Storage, jobId: string): Promise<Array<{ id: number; created_at: string; completed_at: string | null }>> {
  return storage.db.selectFrom('sessions').select(['id', 'created_at', 'completed_at']).where('job_id', '=', jobId).where('preview', '=', 0).execute();
}

/** The stored verdicts of a job, latest completion first. */
export async function verdictsOfJob(storage: Storage, jobId: string): Promise<Array<{ session_id: number; accepted: number; outcomes: string; completed_at: string | null }>> {
  return storage.db
    .selectFrom('session_verdicts as v')
    .innerJoin('sessions as s', 's.id', 'v.session_id')
    .select(['v.session_id', 'v.accepted', 'v.outcomes', 's.completed_at'])
    .where('v.job_id', '=', jobId)
    .where('s.preview', '=', 0)
    .orderBy('s.completed_at', 'desc')
    .execute();
}

/**
 * The abandoned sessions of a job (not completed, begun at or before `abandonedBy`: past the lease; those still in
 * progress are not counted as having left): answers stored and the last interaction-log state they sent.
 */
export async function abandonedSessions(storage: Storage, jobId: string, abandonedBy: string): Promise<Array<{ id: number; answers: number; lastState: { state: string; status: string } | null }>> {
  const unfinished = await storage.db
    .selectFrom('sessions as s')
    .select(['s.id', 's.log_phase', (eb) => eb.selectFrom('ratings as r').select(eb.fn.countAll().as('n')).whereRef('r.session_id', '=', 's.id').as('answers')])
    .where('s.job_id', '=', jobId)
    .where('s.completed_at', 'is', null)
    .where('s.created_at', '<=', abandonedBy)
    .where('s.preview', '=', 0)
    .execute();
  // log_phase is the server's own small JSON ({state, status}), written with the log (session-logs route).
  return unfinished.map((s) => ({ id: s.id, answers: count(s.answers), lastState: s.log_phase ? (JSON.parse(s.log_phase) as { state: string; status: string }) : null }));
}

export type ParticipantFilter = 'all' | 'running' | 'completed' | 'accepted' | 'rejected' | 'abandoned';

export interface ParticipantQuery {
  filter: ParticipantFilter;
  /** A session id, or (with `searchIds`) part of a platform id or e-mail, in any case. */
  search?: string;
  /** Whether `search` may match platform ids (owners only: viewers never see them). */
  searchIds: boolean;
  /** Sessions begun after this and not completed are running; older ones abandoned. */
  runningSince: string;
  page: number;
  pageSize: number;
}

export interface ParticipantRow {
  id: number;
  position: number;
  platform: string;
  created_at: string;
  completed_at: string | null;
  /** 1: a researcher's preview, shown marked. */
  preview: number;
  accepted: number | null;
  outcomes: string | null;
  worker_id: string | null;
  assignment_id: string | null;
  prolific_pid: string | null;
  prolific_session_id: string | null;
  email: string | null;
  answers: number;
}

/** One page of a job's sessions, newest first, with the total that match. */
export async function participantPage(storage: Storage, jobId: string, q: ParticipantQuery): Promise<{ total: number; rows: ParticipantRow[] }> {
  let query = storage.db
    .selectFrom('sessions as s')
    .innerJoin('playlists as p', 'p.id', 's.playlist_id')
    .leftJoin('session_identities as i', 'i.session_id', 's.id')
    .leftJoin('session_verdicts as v', 'v.session_id', 's.id')
    .where('s.job_id', '=', jobId);
  if (q.filter === 'running') query = query.where('s.completed_at', 'is', null).where('s.created_at', '>', q.runningSince);
  if (q.filter === 'abandoned') query = query.where('s.completed_at', 'is', null).where('s.created_at', '<=', q.runningSince);
  if (q.filter === 'completed') query = query.where('s.completed_at', 'is not', null);
  if (q.filter === 'accepted') query = query.where('v.accepted', '=', 1);
  if (q.filter === 'rejected') query = query.where('v.accepted', '=', 0);
  const search = q.search?.trim();
  if (search) {
    // Case-insensitive and partial on both databases: lower() on both sides (PostgreSQL's LIKE minds the case),
    // with LIKE's own wildcards in the text escaped.
    const pattern = `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const contains = (column: 'i.worker_id' | 'i.prolific_pid' | 'i.email' | 'i.assignment_id' | 'i.prolific_session_id') => sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
    query = query.where((eb) =>
      eb.or([
        eb('s.id', '=', /^\d{1,9}$/.test(search) ? Number(search) : -1),
        ...(q.searchIds ? (['i.worker_id', 'i.prolific_pid', 'i.email', 'i.assignment_id', 'i.prolific_session_id'] as const).map(contains) : []),
      ]),
    );
  }
  const total = count((await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const rows = await query
    .select([
      's.id',
      'p.position',
      's.platform',
      's.created_at',
      's.completed_at',
      's.preview',
      'v.accepted',
      'v.outcomes',
      'i.worker_id',
      'i.assignment_id',
      'i.prolific_pid',
      'i.prolific_session_id',
      'i.email',
      (eb) => eb.selectFrom('ratings as r').select(sql<number>`count(*)`.as('n')).whereRef('r.session_id', '=', 's.id').as('answers'),
    ])
    .orderBy('s.id', 'desc')
    .limit(q.pageSize)
    .offset((q.page - 1) * q.pageSize)
    .execute();
  return { total, rows: rows.map((r) => ({ ...r, accepted: r.accepted ?? null, outcomes: r.outcomes ?? null, answers: count(r.answers) })) };
}

/** The token of a job's session, or null when the job has no such session. */
export async function sessionTokenInJob(storage: Storage, jobId: string, sessionId: number): Promise<string | null> {
  const row = await storage.db.selectFrom('sessions').select('token').where('id', '=', sessionId).where('job_id', '=', jobId).executeTakeFirst();
  return row?.token ?? null;
}

/** Rows of a per-session table that belong to a job's sessions (an export's progress bar). */
export async function rowsOfJob(storage: Storage, jobId: string, table: 'ratings' | 'screenings' | 'session_logs'): Promise<number> {
  const sessions = storage.db.selectFrom('sessions').select('id').where('job_id', '=', jobId).where('preview', '=', 0);
  return count((await storage.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('session_id', 'in', sessions).executeTakeFirstOrThrow()).n);
}
