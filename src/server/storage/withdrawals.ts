import { sql } from 'kysely';
import { lockCounters, recountLoads } from './playlist-loads.js';
import { markSumsStale } from './quality-sums.js';
import { participantKey } from './sessions.js';
import { withdrawalDigest } from './tombstones.js';
import { nowIso, type Db, type Storage } from './types.js';

/**
 * A participant's withdrawal (privacy policy, "Your rights and how to withdraw"): the lab finds the sessions from
 * what the participant wrote (verification code, session token, MTurk worker id, Prolific id or invitation email)
 * and deletes their answers, logs, platform identity, browser check and session row in one transaction; with the
 * email, also their lab consent forms.
 *
 * What is kept: for a COMPLETED session only, a tombstone row in `withdrawals` (types.ts) holding the job, two
 * SHA-256 digests (participant key, verification code) and two dates. It exists so that a withdrawn participant
 * still gets ALREADY_COMPLETED on that job (hasCompleted), as if their session were there, and so that a second
 * request can be answered "already done". An unfinished session leaves nothing: it never blocked a retake.
 * The session row itself is deleted, which also frees its playlist slot for a new participant and makes its token
 * useless (any later post from the participant's open page gets 404).
 */

export const WITHDRAWAL_SELECTORS = ['code', 'token', 'worker-id', 'prolific-pid', 'email'] as const;
export type WithdrawalSelectorKind = (typeof WITHDRAWAL_SELECTORS)[number];
export interface WithdrawalSelector {
  by: WithdrawalSelectorKind;
  value: string;
}

/** Verification codes are shown in capitals; participants may retype them in lower case or with spaces. */
const normalizeCode = (code: string) => code.replace(/[\s-]+/g, '').toUpperCase();

export interface SessionToWithdraw {
  sessionId: number;
  jobId: string;
  platform: string;
  startedAt: string;
  completedAt: string | null;
  ratings: number;
  screenings: number;
  sessionLogs: number;
  hasIdentity: boolean;
}

export interface WithdrawalPlan {
  sessions: SessionToWithdraw[];
  /** Consent forms with the selector's email; only for --email without a job (consents are not linked to jobs). */
  consents: number;
  /** Tombstones of earlier withdrawals that match the selector. */
  earlier: Array<{ jobId: string; withdrawnAt: string }>;
}

export interface WithdrawalDeleted {
  sessions: number;
  ratings: number;
  screenings: number;
  sessionLogs: number;
  identities: number;
  bchecks: number;
  consents: number;
  /** Tombstones written (one per completed session). */
  tombstones: number;
}

interface PlannedSession extends SessionToWithdraw {
  participantKey: string | null;
  verificationCode: string | null;
  bcheckId: number | null;
}

const consentsIncluded = (selector: WithdrawalSelector, jobId: string | undefined) => selector.by === 'email' && jobId === undefined;

async function plannedSessions(db: Db, selector: WithdrawalSelector, jobId: string | undefined): Promise<PlannedSession[]> {
  const value = selector.value.trim();
  let query = db
    .selectFrom('sessions as s')
    .leftJoin('session_identities as i', 'i.session_id', 's.id')
    .select((eb) => [
      's.id',
      's.job_id',
      's.platform',
      's.created_at',
      's.completed_at',
      's.verification_code',
      's.bcheck_id',
      'i.session_id as identity_session_id',
      'i.participant_key',
      eb.selectFrom('ratings as r').whereRef('r.session_id', '=', 's.id').select(eb.fn.countAll().as('n')).as('ratings'),
      eb.selectFrom('screenings as m').whereRef('m.session_id', '=', 's.id').select(eb.fn.countAll().as('n')).as('screenings'),
      eb.selectFrom('session_logs as l').whereRef('l.session_id', '=', 's.id').select(eb.fn.countAll().as('n')).as('session_logs'),
    ]);
  if (selector.by === 'code') query = query.where('s.verification_code', '=', normalizeCode(value));
  else if (selector.by === 'token') query = query.where('s.token', '=', value);
  else if (selector.by === 'worker-id') query = query.where('i.worker_id', '=', value);
  else if (selector.by === 'prolific-pid') query = query.where('i.prolific_pid', '=', value);
  else query = query.where(sql`lower(i.email)`, '=', value.toLowerCase());
  if (jobId !== undefined) query = query.where('s.job_id', '=', jobId);
  const rows = await query.orderBy('s.id').execute();
  // Counts are bigint strings on PostgreSQL.
  return rows.map((r) => ({
    sessionId: r.id,
    jobId: r.job_id,
    platform: r.platform,
    startedAt: r.created_at,
    completedAt: r.completed_at,
    ratings: Number(r.ratings),
    screenings: Number(r.screenings),
    sessionLogs: Number(r.session_logs),
    hasIdentity: r.identity_session_id !== null,
    participantKey: r.participant_key,
    verificationCode: r.verification_code,
    bcheckId: r.bcheck_id,
  }));
}

/** The tombstones an earlier withdrawal left for this selector (a token is not kept, so it finds none). */
async function earlierWithdrawals(db: Db, selector: WithdrawalSelector, jobId: string | undefined) {
  const value = selector.value.trim();
  const digest =
    selector.by === 'code'
      ? withdrawalDigest(normalizeCode(value))
      : selector.by === 'worker-id'
        ? withdrawalDigest(participantKey({ platform: 'mturk', workerId: value })!)
        : selector.by === 'prolific-pid'
          ? withdrawalDigest(participantKey({ platform: 'prolific', PROLIFIC_PID: value })!)
          : selector.by === 'email'
            ? withdrawalDigest(participantKey({ platform: 'nantes', email: value })!)
            : null;
  if (digest === null) return [];
  let query = db
    .selectFrom('withdrawals')
    .select(['job_id', 'withdrawn_at'])
    .where(selector.by === 'code' ? 'code_hash' : 'participant_hash', '=', digest);
  if (jobId !== undefined) query = query.where('job_id', '=', jobId);
  const rows = await query.orderBy('id').execute();
  return rows.map((r) => ({ jobId: r.job_id, withdrawnAt: r.withdrawn_at }));
}

async function countConsents(db: Db, email: string): Promise<number> {
  const row = await db
    .selectFrom('consents')
    .select((eb) => eb.fn.countAll().as('n'))
    .where(sql`lower(email)`, '=', email.trim().toLowerCase())
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function plan(db: Db, selector: WithdrawalSelector, jobId: string | undefined): Promise<{ plan: WithdrawalPlan; sessions: PlannedSession[] }> {
  const sessions = await plannedSessions(db, selector, jobId);
  const consents = consentsIncluded(selector, jobId) ? await countConsents(db, selector.value) : 0;
  const earlier = await earlierWithdrawals(db, selector, jobId);
  return { plan: { sessions, consents, earlier }, sessions };
}

/** What a withdrawal would delete, without deleting anything (--dry-run). */
export async function planWithdrawal(storage: Storage, selector: WithdrawalSelector, opts: { jobId?: string } = {}): Promise<WithdrawalPlan> {
  return (await plan(storage.db, selector, opts.jobId)).plan;
}

const deletedCount = (result: { numDeletedRows: bigint }) => Number(result.numDeletedRows);

/**
 * Finds the sessions (and consent forms) of the selector and deletes them in ONE write transaction: the plan that
 * is returned is the one read inside that transaction, so it describes exactly what was deleted.
 */
export async function withdraw(
  storage: Storage,
  selector: WithdrawalSelector,
  opts: { jobId?: string } = {},
): Promise<{ plan: WithdrawalPlan; deleted: WithdrawalDeleted }> {
  return storage.write(async (trx) => {
    const { plan: found, sessions } = await plan(trx, selector, opts.jobId);
    const deleted: WithdrawalDeleted = { sessions: 0, ratings: 0, screenings: 0, sessionLogs: 0, identities: 0, bchecks: 0, consents: 0, tombstones: 0 };
    const ids = sessions.map((s) => s.sessionId);
    if (ids.length > 0) {
      const jobs = [...new Set(sessions.map((s) => s.jobId))];
      // The lock order (playlist-loads.ts): the jobs' loads, then the sessions (deleted below), then the counts.
      await lockCounters(storage, trx, jobs, ['job_loads']);
      deleted.ratings = deletedCount(await trx.deleteFrom('ratings').where('session_id', 'in', ids).executeTakeFirst());
      deleted.screenings = deletedCount(await trx.deleteFrom('screenings').where('session_id', 'in', ids).executeTakeFirst());
      deleted.sessionLogs = deletedCount(await trx.deleteFrom('session_logs').where('session_id', 'in', ids).executeTakeFirst());
      await trx.deleteFrom('session_log_pages').where('session_id', 'in', ids).execute();
      await trx.deleteFrom('mouse_log_pages').where('session_id', 'in', ids).execute();
      deleted.identities = deletedCount(await trx.deleteFrom('session_identities').where('session_id', 'in', ids).executeTakeFirst());
      // The quality verdict describes the deleted answers: it goes with them.
      await trx.deleteFrom('session_verdicts').where('session_id', 'in', ids).execute();
      const withdrawnAt = nowIso();
      const tombstones = sessions
        .filter((s) => s.completedAt !== null)
        .map((s) => ({
          job_id: s.jobId,
          participant_hash: s.participantKey === null ? null : withdrawalDigest(s.participantKey),
          code_hash: s.verificationCode === null ? null : withdrawalDigest(s.verificationCode),
          session_started_at: s.startedAt,
          withdrawn_at: withdrawnAt,
        }));
      if (tombstones.length > 0) await trx.insertInto('withdrawals').values(tombstones).execute();
      deleted.tombstones = tombstones.length;
      deleted.sessions = deletedCount(await trx.deleteFrom('sessions').where('id', 'in', ids).executeTakeFirst());
      await lockCounters(storage, trx, jobs, ['playlist_loads', 'accepted_sessions']);
      for (const jobId of jobs) await recountLoads(storage, trx, jobId);
      await markSumsStale(trx, jobs);
      // A browser check is only the participant's device; delete it unless another session still points at it.
      const bchecks = [...new Set(sessions.map((s) => s.bcheckId).filter((id): id is number => id !== null))];
      if (bchecks.length > 0) {
        deleted.bchecks = deletedCount(
          await trx
            .deleteFrom('bchecks')
            .where('id', 'in', bchecks)
            .where(({ not, exists, selectFrom }) => not(exists(selectFrom('sessions').select('id').whereRef('sessions.bcheck_id', '=', 'bchecks.id'))))
            .executeTakeFirst(),
        );
      }
    }
    if (consentsIncluded(selector, opts.jobId)) {
      deleted.consents = deletedCount(
        await trx.deleteFrom('consents').where(sql`lower(email)`, '=', selector.value.trim().toLowerCase()).executeTakeFirst(),
      );
    }
    return { plan: found, deleted };
  });
}
