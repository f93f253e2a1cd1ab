import { copyFile, link, mkdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PROTOCOLS, type ProtocolRegistry } from '../../protocols/registry.js';
import type { ProtocolDefinition } from '../../protocols/types.js';
import type { StudyFile } from '../../contract/study.js';
import { saveStudy, type StudyMediaFile, type StudySaveStatus } from '../storage/studies.js';
import type { JobStatus, Storage } from '../storage/types.js';
import { htmlImageSources, jobHtmlFields } from '../../contract/study-html.js';
import { placeRandomChecks } from './check-positions.js';
import { importMarker, markImport, stagingPath } from './staging.js';
import type { CheckedModel } from './gltf-check.js';
import { loadStudy, type LoadedStudy } from './validate.js';

export { StudyConflictError } from '../storage/studies.js';

export interface ImportReport {
  jobId: string;
  protocol: string;
  /** Participant route segment of the protocol: links are /{route}/{jobId}. */
  route: string;
  status: StudySaveStatus;
  playlists: number;
  stimuli: number;
  /** Media files copied (new or changed); the others were linked from the previous import. */
  mediaCopied: number;
}

export interface ImportOptions {
  protocols?: ProtocolRegistry;
  /** Let this study file replace a job of the same id imported from another file, or of another protocol. */
  replace?: boolean;
  /** Where the study comes from, as recorded on the job (default: the file's real path; the console: `console:{id}`). */
  source?: string;
  /** The status of a job this import creates (default open). */
  createdStatus?: JobStatus;
  /** The console user who uploads: owner of a job this import creates, in the same transaction. */
  ownerId?: number;
  /** How the study file is loaded and checked (default: loadStudy on the event loop, as the CLI does; the console: study-off-loop.ts). */
  load?: (path: string) => Promise<LoadedStudy>;
}

/**
 * Loads (or updates) the job of a study file and its media, all or nothing: the media are assembled in a staging
 * folder ({mediaDir}/.staging/...; unchanged files hard-linked from the current copy, new or changed ones copied),
 * the database is updated, and only then does the staging folder replace {mediaDir}/{jobId}/. A refused import
 * (invalid file, answers already stored, another file's job) leaves the database and the served media as they were.
 */
export async function importStudy(storage: Storage, studyPath: string, mediaDir: string, opts: ImportOptions = {}): Promise<ImportReport> {
  const loaded = await (opts.load ? opts.load(studyPath) : loadStudy(studyPath, opts.protocols ?? PROTOCOLS));
  const { protocol, mediaRoot } = loaded;
  const study = placeRandomChecks(loaded.study);
  const live = join(mediaDir, study.id);
  const staging = stagingPath(mediaDir, 'import');
  try {
    const { copied: mediaCopied, files } = await stageMedia(study, protocol, loaded.models, mediaRoot, live, staging);
    // A process killed from here on is finished by the next start (staging.ts): the marker names the job.
    await markImport(staging, study.id);
    const status = await saveStudy(storage, study, files, { source: opts.source ?? loaded.file, replace: opts.replace, createdStatus: opts.createdStatus, ownerId: opts.ownerId });
    await swapIn(staging, live, mediaDir);
    const stimuli = study.playlists.reduce((n, p) => n + p.stimuli.length + (p.training ?? []).length, 0);
    return { jobId: study.id, protocol: protocol.name, route: protocol.route, status, playlists: study.playlists.length, stimuli, mediaCopied };
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(importMarker(staging), { force: true });
  }
}

/**
 * Puts every referenced media file into the staging folder: a hard link to the live copy when it is identical
 * (same size and mtime), else a copy. A .gltf's side files (buffers, textures) go beside it, at the same relative
 * paths, as media rows of their own. Returns how many were copied and every file with its size.
 */
async function stageMedia(
  study: StudyFile,
  protocol: ProtocolDefinition,
  models: Map<string, CheckedModel>,
  mediaRoot: string,
  live: string,
  staging: string,
): Promise<{ copied: number; files: StudyMediaFile[] }> {
  const paths = new Set<string>();
  for (const playlist of study.playlists) {
    for (const stimulus of [...playlist.stimuli, ...(playlist.training ?? [])]) {
      for (const [, source] of protocol.stimulus.media(stimulus)) paths.add(source);
    }
  }
  // An adaptive design's conditions: the media of the pairs its arrivals make.
  if (study.design?.mode === 'asap') for (const { conditions } of study.design.contents) for (const source of conditions) paths.add(source);
  for (const model of models.values()) for (const side of model.sideFiles) paths.add(side);
  // The images of the study's texts (checked by the validator) are served from the job's media too.
  for (const [, html] of jobHtmlFields(study.job)) for (const source of htmlImageSources(html)) paths.add(source);
  let copied = 0;
  const files: StudyMediaFile[] = [];
  for (const path of paths) {
    const from = join(mediaRoot, path);
    const current = join(live, path);
    const to = join(staging, path);
    const [src, dst] = await Promise.all([stat(from), stat(current).catch(() => null)]);
    const loadBytes = models.get(path)?.loadBytes;
    files.push({ path, bytes: src.size, ...(loadBytes !== undefined && loadBytes !== src.size ? { loadBytes } : {}) });
    await mkdir(dirname(to), { recursive: true });
    // utimes rounds through floating-point seconds: a copy's mtime is within a millisecond of its source.
    if (dst && dst.size === src.size && Math.abs(dst.mtimeMs - src.mtimeMs) < 1 && (await link(current, to).then(() => true, () => false))) continue;
    await copyFile(from, to);
    await utimes(to, src.atimeMs / 1000, src.mtimeMs / 1000);
    copied++;
  }
  return { copied, files };
}

/** The staging folder becomes the live one; the previous live folder goes (a rename each: no half-copied folder). */
async function swapIn(staging: string, live: string, mediaDir: string): Promise<void> {
  const retired = stagingPath(mediaDir, 'retired');
  const hadLive = await rename(live, retired).then(() => true, (error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return false;
    throw error;
  });
  await mkdir(dirname(live), { recursive: true });
  await rename(staging, live);
  if (hadLive) await rm(retired, { recursive: true, force: true });
}
