import { copyFile, mkdir, stat, utimes } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Protocol } from '../../contract/protocols.js';
import type { StudyFile } from '../../contract/study.js';
import { nowIso, type Db, type Storage } from '../storage/types.js';
import { stimulusSources } from './stimulus-rules.js';
import { loadStudy } from './validate.js';

export type ImportStatus = 'created' | 'updated' | 'unchanged';

export interface ImportReport {
  jobId: string;
  protocol: Protocol;
  status: ImportStatus;
  playlists: number;
  stimuli: number;
  mediaCopied: number;
}

/** Re-import refused: answers are stored and the playlists changed (ids would point at different stimuli). */
export class StudyConflictError extends Error {}

/** JSON with sorted keys, so the same stimulus always stores the same text (change detection on re-import). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

interface DesiredStimulus {
  isTraining: 0 | 1;
  position: number;
  spec: string;
}

function desiredStimuli(playlist: StudyFile['playlists'][number]): DesiredStimulus[] {
  return [
    ...playlist.stimuli.map((s, position) => ({ isTraining: 0 as const, position, spec: canonical(s) })),
    ...(playlist.training ?? []).map((s, position) => ({ isTraining: 1 as const, position, spec: canonical(s) })),
  ];
}

/**
 * Loads (or updates) the job of a study file and copies its media to {mediaDir}/{jobId}/. Idempotent: playlists
 * and stimuli keep their ids (matched by position), nothing is duplicated. When the playlists changed and answers
 * are already stored for the job, the import is refused rather than leaving answers pointing at other stimuli.
 */
export async function importStudy(storage: Storage, studyPath: string, mediaDir: string): Promise<ImportReport> {
  const { study, mediaRoot } = await loadStudy(studyPath);
  const protocol = study.job.subjectiveProtocol;
  const mediaCopied = await copyMedia(study, mediaRoot, join(mediaDir, study.id));

  const status = await storage.write(async (trx) => {
    const existing = await trx.selectFrom('jobs').select(['protocol', 'fields']).where('id', '=', study.id).executeTakeFirst();
    const now = nowIso();
    const fields = canonical(study.job);
    if (!existing) {
      await trx.insertInto('jobs').values({ id: study.id, protocol, fields, created_at: now, updated_at: now }).execute();
      await syncPlaylists(trx, study);
      return 'created' as const;
    }
    const playlistsChanged = existing.protocol !== protocol || (await syncPlaylists(trx, study, { dryRun: true }));
    if (playlistsChanged) {
      const answers = await countAnswers(trx, study.id);
      if (answers > 0) {
        throw new StudyConflictError(
          `job ${study.id} already has ${answers} stored answers and this study file changes its playlists; ` +
            'import it under a new id (or export and remove the old job first) so no answer points at a different stimulus',
        );
      }
      await syncPlaylists(trx, study);
    }
    if (!playlistsChanged && existing.fields === fields) return 'unchanged' as const;
    await trx.updateTable('jobs').set({ protocol, fields, updated_at: now }).where('id', '=', study.id).execute();
    return 'updated' as const;
  });

  const stimuli = study.playlists.reduce((n, p) => n + p.stimuli.length + (p.training?.length ?? 0), 0);
  return { jobId: study.id, protocol, status, playlists: study.playlists.length, stimuli, mediaCopied };
}

async function countAnswers(db: Db, jobId: string): Promise<number> {
  const sessions = db.selectFrom('sessions').select('id').where('job_id', '=', jobId);
  const [ratings, screenings] = await Promise.all([
    db.selectFrom('ratings').select((eb) => eb.fn.countAll().as('n')).where('session_id', 'in', sessions).executeTakeFirstOrThrow(),
    db.selectFrom('screenings').select((eb) => eb.fn.countAll().as('n')).where('session_id', 'in', sessions).executeTakeFirstOrThrow(),
  ]);
  // PostgreSQL counts are bigint (strings in node-postgres).
  return Number(ratings.n) + Number(screenings.n);
}

/**
 * Makes the stored playlists and stimuli equal to the study's, matched by position (ids kept). With dryRun,
 * changes nothing and tells whether anything would change. Removed playlists take their (answerless) sessions
 * with them.
 */
async function syncPlaylists(db: Db, study: StudyFile, opts: { dryRun?: boolean } = {}): Promise<boolean> {
  let changed = false;
  const stored = await db.selectFrom('playlists').select(['id', 'position']).where('job_id', '=', study.id).execute();
  const idAt = new Map(stored.map((p) => [p.position, p.id]));

  const extraPlaylists = stored.filter((p) => p.position >= study.playlists.length).map((p) => p.id);
  if (extraPlaylists.length > 0) {
    changed = true;
    if (!opts.dryRun) await db.deleteFrom('playlists').where('id', 'in', extraPlaylists).execute();
  }

  for (const [position, playlist] of study.playlists.entries()) {
    let playlistId = idAt.get(position);
    if (playlistId === undefined) {
      if (opts.dryRun) return true;
      changed = true;
      ({ id: playlistId } = await db.insertInto('playlists').values({ job_id: study.id, position }).returning('id').executeTakeFirstOrThrow());
    }
    const have = await db.selectFrom('stimuli').select(['id', 'is_training', 'position', 'spec']).where('playlist_id', '=', playlistId).execute();
    const haveAt = new Map(have.map((s) => [`${s.is_training}:${s.position}`, s]));
    const want = desiredStimuli(playlist);
    const wantKeys = new Set(want.map((s) => `${s.isTraining}:${s.position}`));

    const extra = have.filter((s) => !wantKeys.has(`${s.is_training}:${s.position}`)).map((s) => s.id);
    if (extra.length > 0) {
      changed = true;
      if (!opts.dryRun) await db.deleteFrom('stimuli').where('id', 'in', extra).execute();
    }
    const inserts = [];
    for (const s of want) {
      const current = haveAt.get(`${s.isTraining}:${s.position}`);
      if (current?.spec === s.spec) continue;
      changed = true;
      if (opts.dryRun) break;
      if (current) await db.updateTable('stimuli').set({ spec: s.spec }).where('id', '=', current.id).execute();
      else inserts.push({ playlist_id: playlistId, is_training: s.isTraining, position: s.position, spec: s.spec });
    }
    // Chunked so a large playlist stays under the bound-parameter limits of both dialects.
    for (let i = 0; i < inserts.length; i += 500) await db.insertInto('stimuli').values(inserts.slice(i, i + 500)).execute();
    if (changed && opts.dryRun) return true;
  }
  return changed;
}

/** Copies every referenced media file into the store unless an identical copy (same size and mtime) is there. */
async function copyMedia(study: StudyFile, mediaRoot: string, target: string): Promise<number> {
  const paths = new Set<string>();
  for (const playlist of study.playlists) {
    for (const stimulus of [...playlist.stimuli, ...(playlist.training ?? [])]) {
      for (const [, source] of stimulusSources(study.job.subjectiveProtocol, stimulus as Record<string, unknown>)) paths.add(source);
    }
  }
  let copied = 0;
  for (const path of paths) {
    const from = join(mediaRoot, path);
    const to = join(target, path);
    const [src, dst] = await Promise.all([stat(from), stat(to).catch(() => null)]);
    // utimes rounds through floating-point seconds: a copy's mtime is within a millisecond of its source.
    if (dst && dst.size === src.size && Math.abs(dst.mtimeMs - src.mtimeMs) < 1) continue;
    await mkdir(dirname(to), { recursive: true });
    await copyFile(from, to);
    await utimes(to, src.atimeMs / 1000, src.mtimeMs / 1000);
    copied++;
  }
  return copied;
}
