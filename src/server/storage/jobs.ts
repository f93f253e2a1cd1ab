import type { JobFields, JobResponse } from '../../contract/job.js';
import type { StudyQuality } from '../../contract/quality.js';
import type { AdaptiveDesign } from '../../contract/study.js';
import type { JobStatus, Storage } from './types.js';

export interface StoredJob {
  id: string;
  /** Name of the job's protocol (a key of the protocol registry). */
  protocol: string;
  fields: JobFields;
  /** The study's quality control ({} when it declares none: the default rules apply). */
  quality: StudyQuality;
  /** draft, open, paused or closed (docs/console.md): only an open job takes new participants. */
  status: JobStatus;
  /** When its precision rule (quality.stopWhen) closed it to new participants; null until then. */
  precisionReachedAt: string | null;
  /** An adaptive design (docs/adaptive.md): each new participant's playlist is made at arrival; null: fixed playlists. */
  design: AdaptiveDesign | null;
}

export async function findJob(storage: Storage, id: string): Promise<StoredJob | null> {
  const row = await storage.db.selectFrom('jobs').select(['id', 'protocol', 'fields', 'quality', 'status', 'precision_reached_at', 'design']).where('id', '=', id).executeTakeFirst();
  return row
    ? {
        id: row.id,
        protocol: row.protocol,
        fields: JSON.parse(row.fields) as JobFields,
        quality: row.quality ? (JSON.parse(row.quality) as StudyQuality) : {},
        status: row.status,
        precisionReachedAt: row.precision_reached_at,
        design: row.design ? (JSON.parse(row.design) as AdaptiveDesign) : null,
      }
    : null;
}

/** GET /api/jobs/{id}: the Job fields, the id, and backgroundColor under its piiface spelling too. */
export function jobResponse(job: StoredJob): JobResponse {
  return { ...job.fields, id: job.id, background_color: job.fields.backgroundColor };
}

export interface StoredStimulus {
  id: number;
  isTraining: boolean;
  /** The study-file stimulus (sources relative to the study's media folder). */
  spec: unknown;
}

/** Stimuli of one playlist in playlist order, test then training. */
export async function playlistStimuli(storage: Storage, playlistId: number): Promise<StoredStimulus[]> {
  const rows = await storage.db
    .selectFrom('stimuli')
    .select(['id', 'is_training', 'spec'])
    .where('playlist_id', '=', playlistId)
    .orderBy('is_training')
    .orderBy('position')
    .execute();
  return rows.map((r) => ({ id: r.id, isTraining: r.is_training === 1, spec: JSON.parse(r.spec) }));
}

/** A job's playlists in study order (an adaptive design's participants' own playlists left out). */
export function jobPlaylists(storage: Storage, jobId: string): Promise<Array<{ id: number; position: number }>> {
  return storage.db.selectFrom('playlists').select(['id', 'position']).where('job_id', '=', jobId).where('adaptive', '=', 0).orderBy('position').execute();
}

/** True when the playlist exists and belongs to the job. */
export async function jobHasPlaylist(storage: Storage, jobId: string, playlistId: number): Promise<boolean> {
  const row = await storage.db.selectFrom('playlists').select('id').where('id', '=', playlistId).where('job_id', '=', jobId).executeTakeFirst();
  return row !== undefined;
}

export interface JobSummary {
  id: string;
  protocol: string;
  playlists: number;
  sessionsStarted: number;
  sessionsCompleted: number;
  ratings: number;
  screenings: number;
}

/** Every job with its counts (CLI list). */
export async function jobSummaries(storage: Storage): Promise<JobSummary[]> {
  const rows = await storage.db
    .selectFrom('jobs as j')
    .select((eb) => [
      'j.id',
      'j.protocol',
      eb.selectFrom('playlists as p').whereRef('p.job_id', '=', 'j.id').where('p.adaptive', '=', 0).select(eb.fn.countAll().as('n')).as('playlists'),
      // A researcher's previews are not participants (docs/console.md).
      eb.selectFrom('sessions as s').whereRef('s.job_id', '=', 'j.id').where('s.preview', '=', 0).select(eb.fn.countAll().as('n')).as('started'),
      eb
        .selectFrom('sessions as s')
        .whereRef('s.job_id', '=', 'j.id')
        .where('s.preview', '=', 0)
        .where('s.completed_at', 'is not', null)
        .select(eb.fn.countAll().as('n'))
        .as('completed'),
      eb
        .selectFrom('ratings as r')
        .innerJoin('sessions as s', 's.id', 'r.session_id')
        .whereRef('s.job_id', '=', 'j.id')
        .select(eb.fn.countAll().as('n'))
        .as('ratings'),
      eb
        .selectFrom('screenings as m')
        .innerJoin('sessions as s', 's.id', 'm.session_id')
        .whereRef('s.job_id', '=', 'j.id')
        .select(eb.fn.countAll().as('n'))
        .as('screenings'),
    ])
    .orderBy('j.id')
    .execute();
  // Counts are bigint strings on PostgreSQL.
  return rows.map((r) => ({
    id: r.id,
    protocol: r.protocol,
    playlists: Number(r.playlists),
    sessionsStarted: Number(r.started),
    sessionsCompleted: Number(r.completed),
    ratings: Number(r.ratings),
    screenings: Number(r.screenings),
  }));
}
