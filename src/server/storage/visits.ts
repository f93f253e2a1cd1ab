import { randomBytes } from 'node:crypto';
import { nowIso, type Storage } from './types.js';

/**
 * Visits (docs/data-safety.md "Participant continuity", issue 35): a new visitor's page logs its visit when the
 * eligibility checks are shown, and gets its session only when the checks are passed. A visit holds no playlist slot
 * and no lease, and counts in no balancing nor statistic but the console's "visited" (visits never started).
 */

/** Logs a visit of the job; returns its token (128 random bits), which the session's start sends back. */
export async function logVisit(storage: Storage, jobId: string, platform: string): Promise<string> {
  const token = randomBytes(16).toString('base64url');
  await storage.write((trx) => trx.insertInto('visits').values({ job_id: jobId, token, platform, created_at: nowIso(), started_at: null }).execute(), { singleStatement: true });
  return token;
}

/** The visit's session has started (once: a second start, or a token of another job, changes nothing). */
export async function markVisitStarted(storage: Storage, jobId: string, token: string): Promise<void> {
  await storage.write(
    (trx) => trx.updateTable('visits').set({ started_at: nowIso() }).where('token', '=', token).where('job_id', '=', jobId).where('started_at', 'is', null).execute(),
    { singleStatement: true },
  );
}

/** Visits of the job whose visitor never passed eligibility (no session): the console's "visited". */
export async function unstartedVisits(storage: Storage, jobId: string): Promise<number> {
  const row = await storage.db
    .selectFrom('visits')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('job_id', '=', jobId)
    .where('started_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
