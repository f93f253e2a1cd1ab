import type { Db, Storage } from './types.js';

/**
 * Retention of platform identifiers (privacy policy, "How long we keep it": at most 12 months after the study).
 * Deletes the `session_identities` rows (MTurk worker/assignment/HIT ids, Prolific ids, invitation email and the
 * participant key built from them) of a job's sessions started before a date, and the job's withdrawal tombstones
 * of those sessions (their digests are derived from the same ids). Sessions, ratings, screenings, session logs and
 * browser checks stay: pseudonymous under their session number, and still found by their verification code.
 * Consequence: these participants are no longer recognised, so nothing stops them from taking the job again.
 */

export interface IdentityPurge {
  /** Sessions of the job in the date range (whose identity is, or was already, gone). */
  sessions: number;
  identities: number;
  tombstones: number;
}

/** Ids of the job's sessions started strictly before `before` (ISO-8601 UTC); every session when undefined. */
function sessionsInRange(db: Db, jobId: string, before: string | undefined) {
  let query = db.selectFrom('sessions').select('id').where('job_id', '=', jobId);
  if (before !== undefined) query = query.where('created_at', '<', before);
  return query;
}

async function countIdentityPurge(db: Db, jobId: string, before: string | undefined): Promise<IdentityPurge> {
  const sessions = await db
    .selectFrom(sessionsInRange(db, jobId, before).as('s'))
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  const identities = await db
    .selectFrom('session_identities')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('session_id', 'in', sessionsInRange(db, jobId, before))
    .executeTakeFirstOrThrow();
  let tombstones = db.selectFrom('withdrawals').select((eb) => eb.fn.countAll().as('n')).where('job_id', '=', jobId);
  if (before !== undefined) tombstones = tombstones.where('session_started_at', '<', before);
  // Counts are bigint strings on PostgreSQL.
  return { sessions: Number(sessions.n), identities: Number(identities.n), tombstones: Number((await tombstones.executeTakeFirstOrThrow()).n) };
}

/** What purgeIdentities would delete (--dry-run). */
export function planIdentityPurge(storage: Storage, jobId: string, opts: { before?: string } = {}): Promise<IdentityPurge> {
  return countIdentityPurge(storage.db, jobId, opts.before);
}

/** Deletes the identities (and tombstones) in one write transaction; returns what it deleted. */
export async function purgeIdentities(storage: Storage, jobId: string, opts: { before?: string } = {}): Promise<IdentityPurge> {
  return storage.write(async (trx) => {
    const { sessions } = await countIdentityPurge(trx, jobId, opts.before);
    const identities = await trx.deleteFrom('session_identities').where('session_id', 'in', sessionsInRange(trx, jobId, opts.before)).executeTakeFirst();
    // The hashed ids that find a participant's session go too (they are derived from the platform ids).
    await trx.deleteFrom('session_participants').where('session_id', 'in', sessionsInRange(trx, jobId, opts.before)).execute();
    let tombstones = trx.deleteFrom('withdrawals').where('job_id', '=', jobId);
    if (opts.before !== undefined) tombstones = tombstones.where('session_started_at', '<', opts.before);
    const deletedTombstones = await tombstones.executeTakeFirst();
    return { sessions, identities: Number(identities.numDeletedRows), tombstones: Number(deletedTombstones.numDeletedRows) };
  });
}
