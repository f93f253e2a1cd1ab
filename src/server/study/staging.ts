import { randomBytes } from 'node:crypto';
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { jobMediaSizes } from '../storage/studies.js';
import type { Storage } from '../storage/types.js';

/**
 * The media store's staging folder ({mediaDir}/.staging/): where imports assemble a job's media and console uploads
 * are unpacked, before anything is served. Each entry is named `{kind}.{pid}.{random}`, so the process that owns it
 * is known: a server starting up finishes or removes what a killed process left (recoverStaging), and never touches
 * the folders of a live one (a `cli import` running beside it).
 */

export type StagingKind = 'import' | 'upload' | 'retired';

export const stagingRoot = (mediaDir: string) => join(mediaDir, '.staging');

export function stagingPath(mediaDir: string, kind: StagingKind): string {
  return join(stagingRoot(mediaDir), `${kind}.${process.pid}.${randomBytes(6).toString('hex')}`);
}

/** The marker beside an import's staging folder: the job it is for, written before the database is changed. */
export const importMarker = (staging: string) => `${staging}.job`;

export async function markImport(staging: string, jobId: string): Promise<void> {
  await writeFile(importMarker(staging), jobId);
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * At start: the staging entries of processes that no longer run. An import whose database change was committed
 * (the job's media rows are exactly the staged files) is completed: its folder becomes the job's live media. Every
 * other entry (unpacked uploads, uncommitted imports, retired media) is removed. Returns what was done.
 */
export async function recoverStaging(storage: Storage, mediaDir: string): Promise<{ completed: string[]; removed: number }> {
  const root = stagingRoot(mediaDir);
  const entries = await readdir(root).catch(() => [] as string[]);
  const completed: string[] = [];
  let removed = 0;
  const owner = (name: string) => Number(/^(?:import|upload|retired)\.(\d+)\./.exec(name)?.[1] ?? 0);
  for (const name of entries.filter((n) => n.endsWith('.job'))) {
    if (alive(owner(name))) continue;
    const staging = join(root, name.slice(0, -'.job'.length));
    const jobId = (await readFile(join(root, name), 'utf8')).trim();
    if (/^[A-Za-z0-9_-]{1,64}$/.test(jobId) && (await isDirectory(staging)) && (await committed(storage, jobId, staging))) {
      const live = join(mediaDir, jobId);
      await rm(live, { recursive: true, force: true });
      await rename(staging, live);
      completed.push(jobId);
    }
    await rm(join(root, name), { force: true });
  }
  for (const name of await readdir(root).catch(() => [] as string[])) {
    const pid = owner(name);
    if (pid > 0 && alive(pid)) continue;
    await rm(join(root, name), { recursive: true, force: true });
    removed++;
  }
  return { completed, removed };
}

/** Whether the database holds this staged media set as the job's (same paths and sizes): its import committed. */
async function committed(storage: Storage, jobId: string, staging: string): Promise<boolean> {
  const stored = await jobMediaSizes(storage, jobId);
  const staged = await filesUnder(staging);
  if (stored.size !== staged.size) return false;
  return [...stored].every(([path, bytes]) => staged.get(path) === bytes);
}

async function filesUnder(folder: string): Promise<Map<string, number>> {
  const files = new Map<string, number>();
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(folder, path).split('\\').join('/'), (await stat(path)).size);
  }
  return files;
}

const isDirectory = (path: string) => stat(path).then((s) => s.isDirectory(), () => false);
