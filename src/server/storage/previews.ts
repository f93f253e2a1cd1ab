import { randomBytes } from 'node:crypto';
import { nowIso, type Storage } from './types.js';
import { tokenHash } from './users.js';

/**
 * Preview links (docs/console.md): a researcher runs the study as a participant, whatever its status, without it
 * counting. The link carries a random 256-bit token; the database keeps its SHA-256, so any node can check it.
 */

/** How long a preview link works. */
export const PREVIEW_LINK_MS = 24 * 3600_000;


export async function createPreviewLink(storage: Storage, jobId: string, userId: number): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const expires = new Date(Date.now() + PREVIEW_LINK_MS).toISOString();
  await storage.write((trx) => trx.insertInto('preview_links').values({ token_hash: tokenHash(token), job_id: jobId, user_id: userId, expires_at: expires }).execute());
  return token;
}

/** When the token's preview of this job ends, if it opens one now; null when it does not. */
export async function previewLinkExpiry(storage: Storage, jobId: string, token: string): Promise<string | null> {
  const row = await storage.db
    .selectFrom('preview_links')
    .select('expires_at')
    .where('token_hash', '=', tokenHash(token))
    .where('job_id', '=', jobId)
    .executeTakeFirst();
  return row !== undefined && row.expires_at > nowIso() ? row.expires_at : null;
}

/** A preview session ends with its link: it takes answers until `until` (storage/answers.ts). */
export async function endPreviewSessionAt(storage: Storage, sessionId: number, until: string): Promise<void> {
  await storage.write((trx) => trx.updateTable('sessions').set({ preview_until: until }).where('id', '=', sessionId).where('preview', '=', 1).execute(), { singleStatement: true });
}
