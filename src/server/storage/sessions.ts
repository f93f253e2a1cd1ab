import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import { PLATFORMS, type Platform } from '../../contract/protocols.js';
import { hasWithdrawn } from './tombstones.js';
import { nowIso, type Db, type SessionRow, type Storage } from './types.js';

/** Platform identity forwarded in the playlist query (SPEC §2, FIELD-NOTES "Crowd platforms"). */
export interface PlatformIdentity {
  platform: Platform;
  workerId?: string;
  assignmentId?: string;
  hitId?: string;
  turkSubmitTo?: string;
  PROLIFIC_PID?: string;
  STUDY_ID?: string;
  SESSION_ID?: string;
  email?: string;
}

const ID_FIELD_OF_PLATFORM: Record<Platform, 'workerId' | 'PROLIFIC_PID' | 'email'> = {
  mturk: 'workerId',
  prolific: 'PROLIFIC_PID',
  nantes: 'email',
};

/**
 * The key that identifies a person across sessions of a job: the stable id of the declared platform
 * (MTurk workerId, Prolific PID, lab email), else the first other platform id present; null when anonymous.
 */
export function participantKey(identity: PlatformIdentity): string | null {
  for (const platform of [identity.platform, ...PLATFORMS.filter((p) => p !== identity.platform)]) {
    const value = identity[ID_FIELD_OF_PLATFORM[platform]];
    if (value) return `${platform}:${value}`;
  }
  return null;
}

/**
 * True when this participant already has a completed session of this job, or had one and withdrew it
 * (`cli withdraw` leaves a tombstone so that withdrawing does not reopen the job to them).
 */
export async function hasCompleted(db: Db, jobId: string, key: string): Promise<boolean> {
  const row = await db
    .selectFrom('sessions as s')
    .innerJoin('session_identities as i', 'i.session_id', 's.id')
    .select('s.id')
    .where('s.job_id', '=', jobId)
    .where('i.participant_key', '=', key)
    .where('s.completed_at', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined || (await hasWithdrawn(db, jobId, key));
}

/**
 * The playlist that should get the next participant: the fewest sessions that are completed or still running
 * (started less than `leaseMinutes` ago). A session left unfinished past the lease is taken as abandoned and no
 * longer counts, so its slot goes to someone else. Ties: fewest sessions ever, then lowest id.
 */
export async function leastLoadedPlaylist(db: Db, jobId: string, leaseMinutes: number): Promise<number | null> {
  const cutoff = new Date(Date.now() - leaseMinutes * 60_000).toISOString();
  const row = await db
    .selectFrom('playlists as p')
    .leftJoin('sessions as s', 's.playlist_id', 'p.id')
    .select([
      'p.id',
      sql<number>`cast(coalesce(sum(case when s.completed_at is not null or s.created_at > ${cutoff} then 1 else 0 end), 0) as integer)`.as('load'),
      sql<number>`cast(count(s.id) as integer)`.as('total'),
    ])
    .where('p.job_id', '=', jobId)
    .groupBy('p.id')
    .orderBy('load')
    .orderBy('total')
    .orderBy('p.id')
    .limit(1)
    .executeTakeFirst();
  return row?.id ?? null;
}

export interface NewSession {
  jobId: string;
  /** Chosen by the participant link (playlist_id); otherwise the least loaded one. */
  playlistId: number | null;
  identity: PlatformIdentity;
  bcheckId: number | null;
  freeTask: boolean;
  leaseMinutes: number;
}

/**
 * Creates a session with a fresh 256-bit token. Race-safe: the balance count and the insert happen in one write
 * transaction holding the job's lock (PostgreSQL row lock; SQLite serializes writers), so concurrent calls see
 * each other's sessions.
 */
export async function createSession(storage: Storage, input: NewSession): Promise<{ id: number; token: string; playlistId: number }> {
  const token = randomBytes(32).toString('base64url');
  return storage.write(async (trx) => {
    await storage.lockJob(trx, input.jobId);
    const playlistId = input.playlistId ?? (await leastLoadedPlaylist(trx, input.jobId, input.leaseMinutes));
    if (playlistId === null) throw new Error(`job ${input.jobId} has no playlist`);
    const { id } = await trx
      .insertInto('sessions')
      .values({
        job_id: input.jobId,
        playlist_id: playlistId,
        token,
        platform: input.identity.platform,
        bcheck_id: input.bcheckId,
        free_task: input.freeTask ? 1 : 0,
        created_at: nowIso(),
        completed_at: null,
        verification_code: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const i = input.identity;
    await trx
      .insertInto('session_identities')
      .values({
        session_id: id,
        participant_key: participantKey(i),
        worker_id: i.workerId ?? null,
        assignment_id: i.assignmentId ?? null,
        hit_id: i.hitId ?? null,
        turk_submit_to: i.turkSubmitTo ?? null,
        prolific_pid: i.PROLIFIC_PID ?? null,
        study_id: i.STUDY_ID ?? null,
        prolific_session_id: i.SESSION_ID ?? null,
        email: i.email ?? null,
      })
      .execute();
    return { id, token, playlistId };
  });
}

export async function findSessionById(db: Db, id: number): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findSessionByToken(db: Db, token: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('token', '=', token).executeTakeFirst();
}

/** Constant-time token comparison (the token is the session's only secret). */
export function tokenMatches(session: SessionRow, token: string): boolean {
  const a = Buffer.from(session.token);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Test stimuli of the session's playlist that have no stored answer yet, in playlist order. The answer is a
 * rating, or for a free-task bubble session (no rating is asked) its mouse log.
 */
export async function missingAnswers(db: Db, session: SessionRow): Promise<number[]> {
  const rows = await db
    .selectFrom('stimuli as st')
    .select('st.id')
    .where('st.playlist_id', '=', session.playlist_id)
    .where('st.is_training', '=', 0)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          session.free_task
            ? selectFrom('screenings as a').select('a.id').where('a.session_id', '=', session.id).whereRef('a.stimulus_id', '=', 'st.id')
            : selectFrom('ratings as a').select('a.id').where('a.session_id', '=', session.id).whereRef('a.stimulus_id', '=', 'st.id'),
        ),
      ),
    )
    .orderBy('st.position')
    .execute();
  return rows.map((r) => r.id);
}

/** Verification codes: 12 characters from a 31-letter alphabet without look-alikes (about 59 bits). */
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ3456789';
export function newVerificationCode(): string {
  return [...randomBytes(12)].map((b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join('');
}

/** Marks the session completed with a new code unless it already has one; returns the stored (stable) code. */
export async function completeSession(storage: Storage, sessionId: number): Promise<string> {
  return storage.write(async (trx) => {
    await trx
      .updateTable('sessions')
      .set({ completed_at: nowIso(), verification_code: newVerificationCode() })
      .where('id', '=', sessionId)
      .where('verification_code', 'is', null)
      .execute();
    const row = await trx.selectFrom('sessions').select('verification_code').where('id', '=', sessionId).executeTakeFirstOrThrow();
    return row.verification_code!;
  });
}
