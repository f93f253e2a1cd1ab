import { realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/**
 * Media names are "{jobId}/{relative path}" (contract decision). A name is accepted only when every segment is a
 * plain file or folder name: no "..", no ".", no empty segment, no backslash, no control characters, no leading
 * dot. This is checked before touching the disk; the resolved real path must also stay under the media root
 * (a symlink inside the store cannot point out of it).
 */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,200}$/;

export function isSafeMediaName(name: string): boolean {
  if (name.length === 0 || name.length > 1000) return false;
  const segments = name.split('/');
  return segments.length >= 2 && segments.every((s) => SEGMENT.test(s) && !s.includes('..'));
}

export function mediaNameOf(jobId: string, relativePath: string): string {
  return `${jobId}/${relativePath}`;
}

/** The real media root and the file's path under it, or null when it does not exist or escapes the root. */
export async function resolveMediaFile(mediaDir: string, name: string): Promise<{ root: string; relativePath: string } | null> {
  if (!isSafeMediaName(name)) return null;
  const root = await realpath(mediaDir).catch(() => null);
  const file = await realpath(join(mediaDir, name)).catch(() => null);
  if (!root || !file || !file.startsWith(root + sep)) return null;
  return { root, relativePath: relative(root, file) };
}
