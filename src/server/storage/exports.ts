import { sql } from 'kysely';
import { pagedLogBody } from './session-logs.js';
import { pagedText } from './text-pages.js';
import type { Db, Storage } from './types.js';

/**
 * The rows of a job's export, read a page at a time by keyset pagination (id > afterId, in id order), so an
 * export's memory does not grow with the job. Each row carries the session and identity columns; answers carry
 * their stimulus's stored spec (text) too.
 */

export const EXPORT_PAGE_ROWS = 500;

/**
 * The answer table's session_id, for the join on the job's sessions. SQLite, left to itself, starts from the job's
 * sessions, reads every answer of the job through the session index and sorts them all to return 500: each page
 * cost the whole job (0.4 s at 10⁶ rows), so an export grew with the square of the job (≈ 15 minutes for 10⁶
 * rows, bench/analysis). A unary `+` makes the column unusable for an index, so SQLite walks the answers in id
 * order from `afterId` (the primary key) and stops after one page. PostgreSQL plans from statistics and keeps the
 * plain column.
 */
const answerSession = (storage: Storage, table: 'r' | 'm' | 'l') =>
  storage.dialect === 'sqlite' ? sql<number>`+${sql.ref(`${table}.session_id`)}` : sql<number>`${sql.ref(`${table}.session_id`)}`;

/** Which sessions an export holds: a researcher's previews only when asked (docs/console.md). */
export interface ExportScope {
  includePreview?: boolean;
}

function sessionQuery(db: Db, jobId: string, scope: ExportScope) {
  const query = db
    .selectFrom('sessions as s')
    .innerJoin('jobs as j', 'j.id', 's.job_id')
    .leftJoin('session_identities as i', 'i.session_id', 's.id')
    .leftJoin('session_verdicts as v', 'v.session_id', 's.id')
    .where('s.job_id', '=', jobId);
  return (scope.includePreview ? query : query.where('s.preview', '=', 0)).select([
      's.job_id',
      'j.protocol',
      's.playlist_id',
      's.id as session_id',
      's.platform',
      's.preview as session_preview',
      'i.worker_id',
      'i.assignment_id',
      'i.hit_id',
      'i.prolific_pid',
      'i.study_id',
      'i.prolific_session_id',
      'i.email',
      's.bcheck_id',
      's.created_at as session_started_at',
      's.completed_at as session_completed_at',
      'v.accepted as verdict_accepted',
      'v.outcomes as verdict_outcomes',
    ]);
}

export function ratingRows(storage: Storage, jobId: string, afterId: number, scope: ExportScope = {}) {
  return sessionQuery(storage.db, jobId, scope)
    .innerJoin('ratings as r', (join) => join.on(answerSession(storage, 'r'), '=', sql.ref('s.id')))
    .innerJoin('stimuli as st', 'st.id', 'r.stimulus_id')
    .select(['r.id', 'r.stimulus_id', 'st.position as stimulus_position', 'st.is_training', 'st.spec', 'r.value', 'r.nb_replay', 'r.logs', 'r.timing', 'r.created_at'])
    .where('r.id', '>', afterId)
    .orderBy('r.id')
    .limit(EXPORT_PAGE_ROWS)
    .execute();
}

/**
 * Ratings that carry camera poses (3D objects), with their views JSON: a few at a time, since one may hold up to
 * MAX_CAMERA_SAMPLES samples (about 8 MB).
 */
export const VIEW_PAGE_RATINGS = 20;

export function ratingViewRows(storage: Storage, jobId: string, afterId: number, scope: ExportScope = {}) {
  return sessionQuery(storage.db, jobId, scope)
    .innerJoin('ratings as r', (join) => join.on(answerSession(storage, 'r'), '=', sql.ref('s.id')))
    .innerJoin('stimuli as st', 'st.id', 'r.stimulus_id')
    .select(['r.id', 'r.stimulus_id', 'st.position as stimulus_position', 'st.is_training', 'st.spec', 'r.value', 'r.views'])
    .where('r.id', '>', afterId)
    .where('r.views', 'is not', null)
    .orderBy('r.id')
    .limit(VIEW_PAGE_RATINGS)
    .execute();
}

/**
 * The ratings of a job as its analysis report reads them: only the answer's own columns (the report takes each
 * stimulus's spec once from `jobStimulusSpecs`, not once per answer), a page at a time in id order.
 */
export function reportRatingRows(storage: Storage, jobId: string, afterId: number) {
  return storage.db
    .selectFrom('ratings as r')
    .innerJoin('sessions as s', (join) => join.on(answerSession(storage, 'r'), '=', sql.ref('s.id')))
    .where('s.job_id', '=', jobId)
    .where('s.preview', '=', 0)
    .where('r.id', '>', afterId)
    .select(['r.id', 'r.session_id', 'r.stimulus_id', 'r.value', 'r.nb_replay', 'r.logs', 'r.timing', 'r.views'])
    .orderBy('r.id')
    .limit(EXPORT_PAGE_ROWS)
    .execute();
}

/** Every stimulus of a job (all playlists, training included) with its stored spec (text). */
export function jobStimulusSpecs(storage: Storage, jobId: string) {
  return storage.db
    .selectFrom('stimuli as st')
    .innerJoin('playlists as p', 'p.id', 'st.playlist_id')
    .where('p.job_id', '=', jobId)
    .select(['st.id', 'st.playlist_id', 'st.is_training', 'st.spec'])
    .execute();
}

/** Screenings with their whole mouse logs (a paged log's pages joined: storage/text-pages.ts). */
export async function screeningRows(storage: Storage, jobId: string, afterId: number, scope: ExportScope = {}) {
  const rows = await sessionQuery(storage.db, jobId, scope)
    .innerJoin('screenings as m', (join) => join.on(answerSession(storage, 'm'), '=', sql.ref('s.id')))
    .innerJoin('stimuli as st', 'st.id', 'm.stimulus_id')
    .select(['m.id', 'm.stimulus_id', 'st.position as stimulus_position', 'st.is_training', 'st.spec', 'm.screening_no', 'm.mouse_logs', 'm.log_key', 'm.timing', 'm.created_at'])
    .where('m.id', '>', afterId)
    .orderBy('m.id')
    .limit(EXPORT_PAGE_ROWS)
    .execute();
  for (const row of rows) if (row.log_key !== null) row.mouse_logs = await pagedText(storage.db, 'mouse_log_pages', row.log_key);
  return rows.map(({ log_key: _key, ...row }) => row);
}

/** Session logs with their whole bodies (a paged log's pages joined: storage/session-logs.ts). */
export async function sessionLogRows(storage: Storage, jobId: string, afterId: number, scope: ExportScope = {}) {
  const rows = await sessionQuery(storage.db, jobId, scope)
    .innerJoin('session_logs as l', (join) => join.on(answerSession(storage, 'l'), '=', sql.ref('s.id')))
    .select(['l.id', 'l.body', 'l.log_key', 'l.created_at'])
    .where('l.id', '>', afterId)
    .orderBy('l.id')
    .limit(EXPORT_PAGE_ROWS)
    .execute();
  for (const row of rows) if (row.log_key !== null) row.body = await pagedLogBody(storage, row.log_key);
  return rows.map(({ log_key: _key, ...row }) => row);
}
