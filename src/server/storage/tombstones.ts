import { createHash } from 'node:crypto';
import type { Db } from './types.js';

/**
 * Withdrawal tombstones (`withdrawals` table, written by withdrawals.ts): a separate module so that
 * sessions.ts (hasCompleted) can read them without importing the withdrawal code.
 */

/** Digest stored in place of a participant key or a verification code (case-insensitive: people retype them). */
export function withdrawalDigest(value: string): string {
  return createHash('sha256').update(`glimpse-withdrawal\n${value.trim().toLowerCase()}`).digest('hex');
}

/** True when the participant known by any of these keys withdrew a completed session of this job (so they count as
 * having completed it): one indexed query. */
export async function hasWithdrawn(db: Db, jobId: string, participantKeys: readonly string[]): Promise<boolean> {
  if (participantKeys.length === 0) return false;
  const row = await db
    .selectFrom('withdrawals')
    .select('id')
    .where('participant_hash', 'in', participantKeys.map(withdrawalDigest))
    .where('job_id', '=', jobId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
