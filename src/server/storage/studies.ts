import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { MediaAttributes, StudyFile } from '../../contract/study.js';
import { BUSY_PAUSE_MAX_MS } from './group-commit.js';
import { rebuildLoads } from './playlist-loads.js';
import { startAcceptedSums } from './quality-sums.js';
import { nowIso, type Db, type JobStatus, type Storage } from './types.js';

/**
 * Storing a study file's job, playlists and stimuli (the database half of study/import.ts). Idempotent: playlists
 * and stimuli keep their ids (matched by position), nothing is duplicated. When the playlists changed and answers
 * are already stored for the job, the update is refused rather than leaving answers pointing at other stimuli.
 */

export type StudySaveStatus = 'created' | 'updated' | 'unchanged';

/**
 * Re-import refused: answers are stored and the playlists changed (ids would point at different stimuli), or
 * another study file (or protocol) would replace the job without --replace.
 */
export class StudyConflictError extends Error {}

export interface SaveStudyOptions {
  /** The study file's real path (recorded on the job). */
  source: string;
  /** Let this file replace a job imported from another file or of another protocol. */
  replace?: boolean;
  /** The status of a job this import creates (default open; the console's uploads start as drafts). */
  createdStatus?: JobStatus;
  /** A console user made owner of the job when this creates it (same transaction: never a job without its owner). */
  ownerId?: number;
}

/** JSON with sorted keys, so the same stimulus always stores the same text (change detection on re-import). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A media file of the study: its path in the media folder and its size in bytes. */
export interface StudyMediaFile {
  path: string;
  bytes: number;
  /** What a browser loads to show it, when more than the file: a .gltf with its side files. */
  loadBytes?: number;
}

/** A job's media file as stored: size and analysis attributes. */
export interface JobMediaFile extends StudyMediaFile {
  attributes: MediaAttributes;
}

/**
 * A study of more stimuli than this is created in chunks of CHUNK_STIMULI, each its own short transaction, rather
 * than in one: 1,000,000 stimuli held SQLite's write lock for 5.6 s, and every participant's answer waited behind it
 * (issue 34). A chunk holds the lock about 6 ms.
 */
export const ATOMIC_STIMULI = 20_000;
const CHUNK_STIMULI = 1_000;
/** Between two chunks' transactions (createInChunks): longer than the group commit's BUSY_PAUSE_MAX_MS. */
const CHUNK_GAP_MS = BUSY_PAUSE_MAX_MS + 1;

export async function saveStudy(storage: Storage, study: StudyFile, media: StudyMediaFile[], options: SaveStudyOptions): Promise<StudySaveStatus> {
  // An unchanged re-import is found with reads alone: it takes no write lock (it held it 1.8 s for a large study).
  if (await studyUnchanged(storage.db, study, media, options)) return 'unchanged';
  const existing = await storage.db.selectFrom('jobs').select(['status', 'source']).where('id', '=', study.id).executeTakeFirst();
  if (stimulusCount(study) > ATOMIC_STIMULI && (!existing || (await unfinishedCreation(storage.db, study.id, existing)))) {
    return createInChunks(storage, study, media, options, existing !== undefined);
  }
  return storage.write(async (trx) => {
    const status = await saveJob(trx, study, options);
    await replaceJobMedia(trx, study, media);
    // Playlists may have come or gone: count the job's balancing loads anew. Then the sums, in the lock order of
    // playlist-loads.ts (job_loads, playlist_loads, accepted_sessions).
    if (status !== 'unchanged') await rebuildLoads(storage, trx, study.id);
    if (status === 'created') await startAcceptedSums(trx, study.id);
    if (status === 'created' && options.ownerId !== undefined) await trx.insertInto('job_roles').values({ job_id: study.id, user_id: options.ownerId, role: 'owner' }).execute();
    return status;
  });
}

/** The design as stored: null for the fixed design, written out or left out. */
const designJson = (study: StudyFile) => (study.design && study.design.mode !== 'fixed' ? canonicalJson(study.design) : null);

const stimulusCount = (study: StudyFile) => study.playlists.reduce((n, p) => n + p.stimuli.length + (p.training ?? []).length, 0);

async function replaceJobMedia(trx: Db, study: StudyFile, media: StudyMediaFile[]): Promise<void> {
  await trx.deleteFrom('job_media').where('job_id', '=', study.id).execute();
  for (let i = 0; i < media.length; i += 500) await trx.insertInto('job_media').values(media.slice(i, i + 500).map((m) => jobMediaRow(study, m))).execute();
}

function jobMediaRow(study: StudyFile, m: StudyMediaFile) {
  const attributes = study.mediaAttributes?.[m.path];
  return { job_id: study.id, path: m.path, bytes: m.bytes, attributes: attributes ? canonicalJson(attributes) : null, load_bytes: m.loadBytes ?? null };
}

/** The stored job is this study as it is, media included: importing it again would change nothing. */
async function studyUnchanged(db: Db, study: StudyFile, media: StudyMediaFile[], options: SaveStudyOptions): Promise<boolean> {
  const job = await db.selectFrom('jobs').select(['protocol', 'fields', 'quality', 'source', 'design']).where('id', '=', study.id).executeTakeFirst();
  if (!job || job.source !== options.source || job.protocol !== study.job.subjectiveProtocol || job.design !== designJson(study)) return false;
  if (job.fields !== canonicalJson(study.job) || job.quality !== (study.quality ? canonicalJson(study.quality) : null)) return false;
  const stored = await db.selectFrom('job_media').select(['path', 'bytes', 'attributes', 'load_bytes']).where('job_id', '=', study.id).execute();
  const wanted = new Map(media.map((m) => [m.path, jobMediaRow(study, m)]));
  const sameMedia =
    stored.length === wanted.size &&
    stored.every((row) => {
      const want = wanted.get(row.path);
      return want !== undefined && Number(row.bytes) === want.bytes && row.attributes === want.attributes && (row.load_bytes === null ? null : Number(row.load_bytes)) === want.load_bytes;
    });
  return sameMedia && !(await syncPlaylists(db, study, { dryRun: true }));
}

/**
 * A job whose creation in chunks never finished (the importing process was killed): a draft with no source and no
 * session yet. Importing its study again creates it anew.
 */
async function unfinishedCreation(db: Db, jobId: string, job: { status: string; source: string | null }): Promise<boolean> {
  if (job.status !== 'draft' || job.source !== null) return false;
  return !(await db.selectFrom('sessions').select('id').where('job_id', '=', jobId).limit(1).executeTakeFirst());
}

/**
 * Creates a large job in short transactions: first the job as a draft without a source (no participant can open a
 * draft, and the console shows it as one), then its playlists and stimuli CHUNK_STIMULI at a time, then, in one
 * transaction, its media, loads, sums, owner, source and status. Killed half-way, it leaves a draft that the next
 * import of the same study replaces (unfinishedCreation).
 */
async function createInChunks(storage: Storage, study: StudyFile, media: StudyMediaFile[], options: SaveStudyOptions, replaceUnfinished: boolean): Promise<StudySaveStatus> {
  const now = nowIso();
  await storage.write(async (trx) => {
    if (replaceUnfinished) await trx.deleteFrom('jobs').where('id', '=', study.id).execute();
    const row = { id: study.id, protocol: study.job.subjectiveProtocol, fields: canonicalJson(study.job), quality: study.quality ? canonicalJson(study.quality) : null, design: designJson(study) };
    await trx.insertInto('jobs').values({ ...row, source: null, status: 'draft', created_at: now, updated_at: now }).execute();
  });
  for (const [position, playlist] of study.playlists.entries()) {
    const { id: playlistId } = await storage.write((trx) => trx.insertInto('playlists').values({ job_id: study.id, position }).returning('id').executeTakeFirstOrThrow(), { singleStatement: true });
    const rows = (await desiredStimuli(playlist, true)).map((s) => ({ playlist_id: playlistId, is_training: s.isTraining, position: s.position, spec: s.spec }));
    for (let i = 0; i < rows.length; i += CHUNK_STIMULI) {
      const chunk = rows.slice(i, i + CHUNK_STIMULI);
      await storage.write(async (trx) => {
        for (let j = 0; j < chunk.length; j += 500) await trx.insertInto('stimuli').values(chunk.slice(j, j + 500)).execute();
      });
      // SQLite has no queue for its write lock: a CLI writing chunk after chunk would take it back before the
      // server's next try. A gap longer than the server's longest pause between tries lets participants' writes in.
      await sleep(CHUNK_GAP_MS);
    }
  }
  return storage.write(async (trx) => {
    await replaceJobMedia(trx, study, media);
    await rebuildLoads(storage, trx, study.id);
    await startAcceptedSums(trx, study.id);
    if (options.ownerId !== undefined) await trx.insertInto('job_roles').values({ job_id: study.id, user_id: options.ownerId, role: 'owner' }).execute();
    await trx.updateTable('jobs').set({ source: options.source, status: options.createdStatus ?? 'open' }).where('id', '=', study.id).execute();
    return 'created' as const;
  });
}

async function saveJob(trx: Db, study: StudyFile, options: SaveStudyOptions): Promise<StudySaveStatus> {
  const protocol = study.job.subjectiveProtocol;
  const existing = await trx.selectFrom('jobs').select(['protocol', 'fields', 'quality', 'source', 'design']).where('id', '=', study.id).executeTakeFirst();
  const now = nowIso();
  const design = designJson(study);
  const fields = canonicalJson(study.job);
  const quality = study.quality ? canonicalJson(study.quality) : null;
  const source = options.source;
  if (!existing) {
    await trx.insertInto('jobs').values({ id: study.id, protocol, fields, quality, source, design, created_at: now, updated_at: now, ...(options.createdStatus ? { status: options.createdStatus } : {}) }).execute();
    await syncPlaylists(trx, study);
    return 'created';
  }
  // A study file reusing an id, or changing the protocol, is a mistake more often than a replacement.
  const otherFile = existing.source !== null && existing.source !== source;
  if ((otherFile || existing.protocol !== protocol) && !options.replace) {
    throw new StudyConflictError(
      `job ${study.id} was imported from ${existing.source ?? 'another study file'} (${existing.protocol}); ` +
        `importing ${source} (${protocol}) would replace it: use --replace if that is what you want`,
    );
  }
  // A changed design changes what the playlists hold as surely as a changed playlist does.
  const playlistsChanged = existing.protocol !== protocol || existing.design !== design || (await syncPlaylists(trx, study, { dryRun: true }));
  if (playlistsChanged) {
    const answers = await countAnswers(trx, study.id);
    if (answers > 0) {
      throw new StudyConflictError(
        `job ${study.id} already has ${answers} stored answers and this study file changes its playlists${existing.design !== design ? ' (its design)' : ''}; ` +
          'import it under a new id (or export and remove the old job first) so no answer points at a different stimulus',
      );
    }
    await syncPlaylists(trx, study);
  }
  if (!playlistsChanged && existing.fields === fields && existing.quality === quality && existing.source === source) return 'unchanged';
  // New rules apply to later verdicts; `cli screen` re-judges the sessions already in.
  // A changed quality (its stopWhen, or rules that include other sessions) is judged again from the next verdict.
  const precision = existing.quality === quality ? {} : { precision_reached_at: null };
  await trx.updateTable('jobs').set({ protocol, fields, quality, source, design, updated_at: now, ...precision }).where('id', '=', study.id).execute();
  return 'updated';
}

/** The sizes of a job's media files by path (bytes). */
export async function jobMediaSizes(storage: Storage, jobId: string): Promise<Map<string, number>> {
  return new Map([...(await jobMedia(storage, jobId)).values()].map((m) => [m.path, m.bytes]));
}

/** The bytes a browser loads for each of a job's media files (a .gltf's include its side files), by path. */
export async function jobMediaLoadSizes(storage: Storage, jobId: string): Promise<Map<string, number>> {
  const rows = await storage.db.selectFrom('job_media').select(['path', 'bytes', 'load_bytes']).where('job_id', '=', jobId).execute();
  return new Map(rows.map((r) => [r.path, Number(r.load_bytes ?? r.bytes)]));
}

/** A job's media files by path, with their sizes and analysis attributes. */
export async function jobMedia(storage: Storage, jobId: string): Promise<Map<string, JobMediaFile>> {
  const rows = await storage.db.selectFrom('job_media').select(['path', 'bytes', 'attributes']).where('job_id', '=', jobId).execute();
  return new Map(rows.map((r) => [r.path, { path: r.path, bytes: Number(r.bytes), attributes: r.attributes ? (JSON.parse(r.attributes) as MediaAttributes) : {} }]));
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

interface DesiredStimulus {
  isTraining: 0 | 1;
  position: number;
  spec: string;
}

/**
 * Rows of stimuli read, or written out as JSON, in one go: SQLite reads in one synchronous call (300,000 took about
 * 0.6 s), and 10,000 canonical JSONs took about 30 ms.
 */
const STIMULI_PAGE = 2_000;

/**
 * A playlist's stimuli as stored rows would hold them. `betweenTurns` (outside any transaction: a dry run, or a
 * creation in chunks; a console upload is answered by the running server) lets other requests go first every
 * STIMULI_PAGE.
 */
async function desiredStimuli(playlist: StudyFile['playlists'][number], betweenTurns = false): Promise<DesiredStimulus[]> {
  const lists = [[0, playlist.stimuli], [1, playlist.training ?? []]] as const;
  const desired: DesiredStimulus[] = [];
  for (const [isTraining, stimuli] of lists) {
    for (const [position, s] of stimuli.entries()) {
      if (betweenTurns && position % STIMULI_PAGE === STIMULI_PAGE - 1) await nextTurn();
      desired.push({ isTraining, position, spec: canonicalJson(s) });
    }
  }
  return desired;
}

/** A playlist's stored stimuli, read STIMULI_PAGE at a time (`betweenTurns`: as for desiredStimuli). */
async function storedStimuli(db: Db, playlistId: number, betweenTurns: boolean) {
  const rows: Array<{ id: number; is_training: number; position: number; spec: string }> = [];
  for (let after = 0; ; ) {
    if (betweenTurns) await nextTurn();
    const page = await db.selectFrom('stimuli').select(['id', 'is_training', 'position', 'spec']).where('playlist_id', '=', playlistId).where('id', '>', after).orderBy('id').limit(STIMULI_PAGE).execute();
    rows.push(...page);
    if (page.length < STIMULI_PAGE) return rows;
    after = page.at(-1)!.id;
  }
}

/**
 * Makes the stored playlists and stimuli equal to the study's, matched by position (ids kept). With dryRun,
 * changes nothing and tells whether anything would change. Removed playlists take their (answerless) sessions
 * with them.
 */
async function syncPlaylists(db: Db, study: StudyFile, opts: { dryRun?: boolean } = {}): Promise<boolean> {
  let changed = false;
  // A participant's own playlist (an adaptive design's) is not the study file's: kept as it is.
  const stored = await db.selectFrom('playlists').select(['id', 'position']).where('job_id', '=', study.id).where('adaptive', '=', 0).execute();
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
    const have = await storedStimuli(db, playlistId, opts.dryRun === true);
    const haveAt = new Map(have.map((s) => [`${s.is_training}:${s.position}`, s]));
    const want = await desiredStimuli(playlist, opts.dryRun === true);
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
