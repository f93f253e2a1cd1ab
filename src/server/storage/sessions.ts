import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import { PLATFORMS, type Platform } from '../../contract/platforms.js';
import { normaliseParticipantId, participantHashes } from './participant-ids.js';
import { countCompletion, countNewSession, leaseCutoff, leastLoaded, lockedLoads, lockJobLoads, rebuildLoads, SWEEP_EVERY_MS, type PlaylistLoad } from './playlist-loads.js';
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

/** Every platform id of the identity, whichever parameter carried it. */
const identityIds = (identity: PlatformIdentity) => [identity.workerId, identity.PROLIFIC_PID, identity.email];

/**
 * True when one of these ids withdrew a completed session of this job (`cli withdraw` leaves a tombstone so that
 * withdrawing does not reopen the job to them), under any platform's parameter.
 */
async function hasWithdrawnAny(db: Db, jobId: string, identity: PlatformIdentity): Promise<boolean> {
  const ids = [...new Set(identityIds(identity).map(normaliseParticipantId))].filter((id) => id !== null);
  return hasWithdrawn(db, jobId, ids.flatMap((id) => PLATFORMS.map((platform) => `${platform}:${id}`)));
}

/** This participant already completed the job (or withdrew a completed session): no new session, no resume. */
export class AlreadyCompletedError extends Error {}

/** Every playlist of the job already has its target of accepted observers (docs/quality.md). */
export class StudyFullError extends Error {}

/**
 * The playlist that should get the next participant (storage/playlist-loads.ts: the lowest load, counting the
 * sessions that are completed and included in the analysis by quality control, or still running within the lease;
 * ties: fewest sessions ever, then lowest id). `playlistId` restricts the choice to that playlist (a link that names
 * it). A write: it sweeps the lease.
 */
export async function leastLoadedPlaylist(storage: Storage, jobId: string, leaseMinutes: number, playlistId: number | null = null): Promise<PlaylistLoad | null> {
  return storage.write(async (trx) => leastLoaded(await lockedLoads(storage, trx, jobId, leaseMinutes), playlistId));
}

export interface NewSession {
  jobId: string;
  /** Chosen by the participant link (playlist_id, where the job allows it); otherwise the least loaded one. */
  playlistId: number | null;
  /** The session token the page kept from an earlier load (anonymous participants resume with it). */
  resumeToken?: string | null;
  identity: PlatformIdentity;
  bcheckId: number | null;
  freeTask: boolean;
  leaseMinutes: number;
  /** Accepted observers each playlist needs; a playlist that has them (running sessions included) takes no one. */
  targetAccepted?: number;
  /** The job takes new participants (open); a paused or closed job only gives unfinished sessions back. */
  acceptsNew?: boolean;
  /**
   * A researcher's preview (a console preview link): a session of its own whatever the job's status and target,
   * marked, with no platform ids (it blocks no one and resumes only a preview).
   */
  preview?: boolean;
  /**
   * An adaptive design (server/adaptive/arrival.ts): a new session gets a playlist of its own, made by this inside
   * the arrival's transaction, under the job's lock; `playlistId` and the per-playlist target do not apply, and a
   * target of 0 (the precision rule closed the job) refuses every new participant.
   */
  makeOwnPlaylist?: (trx: Db, preview: boolean) => Promise<number>;
}

/** A paused or closed job: no new session (those in progress may finish). */
export class JobNotOpenError extends Error {}

export interface OpenedSession {
  id: number;
  token: string;
  playlistId: number;
  /** An unfinished session of this participant was found and is given back (a reload, a second tab). */
  resumed: boolean;
}

/** A session of the participant found by their ids or by the token their page kept. */
interface KnownSession {
  id: number;
  token: string;
  playlist_id: number;
  completed_at: string | null;
}

/**
 * The token a page kept is honoured only for a link without a platform id (issue 35): on a shared computer the next
 * person's link carries their own id, and a token left by whoever used the browser before must neither hand them
 * that session nor refuse them as "already completed". With an id, the id alone finds the session.
 */
const tokenAppliesTo = (hashes: readonly string[], resumeToken: string | null | undefined) => (hashes.length === 0 ? (resumeToken ?? null) : null);

/**
 * The participant's session of this job, if any: one of their platform ids' (a completed one first, so a second
 * completion is refused), else, for a link without an id, the one of the token the page kept. Read-only; `db` is
 * the transaction of the arrival, or the database for a visit.
 */
async function participantSession(db: Db, jobId: string, hashes: string[], resumeToken: string | null, preview: boolean): Promise<KnownSession | undefined> {
  if (hashes.length > 0) {
    return db
      .selectFrom('session_participants as p')
      .innerJoin('sessions as s', 's.id', 'p.session_id')
      .select(['s.id', 's.token', 's.playlist_id', 's.completed_at'])
      .where('p.job_id', '=', jobId)
      .where('p.participant_hash', 'in', hashes)
      .orderBy(sql`s.completed_at is null`)
      .orderBy('s.id')
      .executeTakeFirst();
  }
  if (resumeToken === null) return undefined;
  return db
    .selectFrom('sessions')
    .select(['id', 'token', 'playlist_id', 'completed_at'])
    .where('token', '=', resumeToken)
    .where('job_id', '=', jobId)
    .where('preview', '=', preview ? 1 : 0)
    .executeTakeFirst();
}

/** Where a visitor stands before any session is given (a visit, docs/data-safety.md "Participant continuity"). */
export type Standing = 'completed' | 'unfinished' | 'new';

/**
 * A visit's look-up (docs/data-safety.md "Participant continuity"): whether the participant completed the job (or
 * withdrew from it), has a session to resume, or is new. Reads only, holds nothing: the session itself is decided by
 * openSession once eligibility is passed, which looks again.
 */
export async function participantStanding(storage: Storage, input: Pick<NewSession, 'jobId' | 'identity' | 'resumeToken' | 'preview'>): Promise<Standing> {
  const preview = input.preview === true;
  const hashes = preview ? [] : participantHashes(identityIds(input.identity));
  if (await hasWithdrawnAny(storage.db, input.jobId, input.identity)) return 'completed';
  const known = await participantSession(storage.db, input.jobId, hashes, tokenAppliesTo(hashes, input.resumeToken), preview);
  if (!known) return 'new';
  return known.completed_at === null ? 'unfinished' : 'completed';
}

/**
 * The participant's session of this job: their unfinished one when they have it (found by any of their platform
 * ids, or for a link without one by the token the page kept), else a new one with a fresh 256-bit token.
 * AlreadyCompletedError when they completed (or withdrew from) the job. Race-safe: the lookups, the choice and the
 * insert happen in one short write transaction holding the job's balancing counts (PostgreSQL: the job_loads row
 * lock, taken and released inside one call of a database function; SQLite serializes writers), so concurrent calls
 * (two tabs, several server processes) see each other's sessions, and the unique (job, id) rows make a second
 * session impossible. Nothing in it reads more than the participant's own rows and one count row per playlist.
 */
export async function openSession(storage: Storage, input: NewSession): Promise<OpenedSession> {
  const preview = input.preview === true;
  const hashes = preview ? [] : participantHashes(identityIds(input.identity));
  // Before the job's lock, which arrivals queue on (a withdrawal of this very participant landing between this check
  // and their new session is the one race left open: a person does not withdraw while starting again).
  if (await hasWithdrawnAny(storage.db, input.jobId, input.identity)) throw new AlreadyCompletedError();
  // Both paths get the token only where it applies (the database function then needs no change).
  const decided = { ...input, resumeToken: tokenAppliesTo(hashes, input.resumeToken) };
  if (storage.dialect === 'postgres') return decided.makeOwnPlaylist ? openOwnPlaylistSessionInDatabase(storage, decided, hashes) : openSessionInDatabase(storage, decided, hashes);
  return openSessionInTransaction(storage, decided, hashes);
}

/**
 * SQLite: the decision in a write transaction (SQLite serialises writers, in this process, with no round trip). A
 * refusal is returned from the transaction and thrown once it has committed, so that the lease sweep (and a first
 * count) it made is kept, as glimpse_open_session's is (issue 37: undone here, the next arrival's sweep reached
 * further than PostgreSQL's and could choose another playlist).
 */
async function openSessionInTransaction(storage: Storage, input: NewSession, hashes: string[]): Promise<OpenedSession> {
  const decided = await decideInTransaction(storage, input, hashes);
  if (decided instanceof Error) throw decided;
  return decided;
}

function decideInTransaction(storage: Storage, input: NewSession, hashes: string[]): Promise<OpenedSession | Error> {
  const preview = input.preview === true;
  const token = newSessionToken();
  return storage.write(async (trx): Promise<OpenedSession | Error> => {
    // An adaptive design chooses among no playlists: its arrivals only lock and sweep.
    const loads = input.makeOwnPlaylist ? (await lockJobLoads(storage, trx, input.jobId, input.leaseMinutes), []) : await lockedLoads(storage, trx, input.jobId, input.leaseMinutes);
    const open = await participantSession(trx, input.jobId, hashes, input.resumeToken ?? null, preview);
    if (open?.completed_at) return new AlreadyCompletedError();
    if (open) {
      // Ids this load brings that the session did not have yet (another parameter for the same person).
      if (hashes.length > 0) {
        await trx
          .insertInto('session_participants')
          .values(hashes.map((participant_hash) => ({ job_id: input.jobId, participant_hash, session_id: open.id })))
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
      return { id: open.id, token: open.token, playlistId: open.playlist_id, resumed: true };
    }
    if (input.acceptsNew === false && !preview) return new JobNotOpenError();
    let playlistId: number;
    if (input.makeOwnPlaylist) {
      if (input.targetAccepted === 0 && !preview) return ownPlaylistsFull(input);
      playlistId = await input.makeOwnPlaylist(trx, preview);
    } else {
      const chosen = leastLoaded(loads, input.playlistId);
      if (!chosen) return noPlaylist(input);
      if (input.targetAccepted !== undefined && chosen.load >= input.targetAccepted && !preview) return studyFull(input, chosen.id);
      playlistId = chosen.id;
    }
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
        preview: preview ? 1 : 0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (!preview) await countNewSession(trx, playlistId);
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
    if (hashes.length > 0) {
      await trx.insertInto('session_participants').values(hashes.map((participant_hash) => ({ job_id: input.jobId, participant_hash, session_id: id }))).execute();
    }
    return { id, token, playlistId, resumed: false };
  });
}

const noPlaylist = (input: NewSession) => new Error(`job ${input.jobId} has no playlist${input.playlistId === null ? '' : ` ${input.playlistId}`}`);
const studyFull = (input: NewSession, playlistId: number) =>
  new StudyFullError(input.playlistId === null ? `every playlist of job ${input.jobId} has its ${input.targetAccepted} observers` : `playlist ${playlistId} has its ${input.targetAccepted} observers`);

const ownPlaylistsFull = (input: NewSession) => new StudyFullError(`job ${input.jobId} takes no new participant (its precision rule closed it)`);

/**
 * PostgreSQL, an adaptive design: the participant's own playlist is made in this process (ASAP runs here), so the
 * job's lock is taken by a statement of this transaction and held across the round trips that make it; the session
 * itself is then opened by the same database function, in the same transaction, on that playlist. Resuming and the
 * refusals are decided before any playlist is made, under the lock, exactly as the function would decide them.
 */
async function openOwnPlaylistSessionInDatabase(storage: Storage, input: NewSession, hashes: string[]): Promise<OpenedSession> {
  const preview = input.preview === true;
  const decided = await storage.write(async (trx): Promise<OpenedSession | Error> => {
    await lockJobLoads(storage, trx, input.jobId, input.leaseMinutes);
    const known = await participantSession(trx, input.jobId, hashes, input.resumeToken ?? null, preview);
    if (known?.completed_at) return new AlreadyCompletedError();
    let playlistId = known?.playlist_id ?? null;
    if (!known) {
      if (input.acceptsNew === false && !preview) return new JobNotOpenError();
      if (input.targetAccepted === 0 && !preview) return ownPlaylistsFull(input);
      playlistId = await input.makeOwnPlaylist!(trx, preview);
    }
    return callOpenSession(trx, { ...input, playlistId, targetAccepted: undefined }, hashes);
  });
  if (decided instanceof Error) throw decided;
  return decided;
}

/**
 * PostgreSQL: the same decision in one call of the database function `glimpse_open_session` (migration 017), so
 * that the job's lock is held for its statements only, not across round trips to this process (a loaded event loop
 * answers each one late, and every arrival of the job waits meanwhile). A job whose counts were never built gets
 * them first (the function says so), then the call is made again.
 */
async function openSessionInDatabase(storage: Storage, input: NewSession, hashes: string[], counted = false): Promise<OpenedSession> {
  const opened = await callOpenSession(storage.db, input, hashes);
  if (!(opened instanceof UncountedJob)) {
    if (opened instanceof Error) throw opened;
    return opened;
  }
  if (counted) throw new Error(`glimpse_open_session answered uncounted for job ${input.jobId} after its counts were built`);
  await storage.write((trx) => rebuildLoads(storage, trx, input.jobId));
  return openSessionInDatabase(storage, input, hashes, true);
}

/** The job has no balancing counts yet (the function did nothing): build them and call again. */
class UncountedJob extends Error {}

/** One call of glimpse_open_session; its refusals returned as errors. */
async function callOpenSession(db: Db, input: NewSession, hashes: string[]): Promise<OpenedSession | Error> {
  const preview = input.preview === true;
  const token = newSessionToken();
  const cutoff = leaseCutoff(input.leaseMinutes);
  const sweepBefore = new Date(Date.parse(cutoff) - SWEEP_EVERY_MS).toISOString();
  const i = input.identity;
  const { rows } = await sql<{ outcome: string; o_session_id: number | null; o_token: string | null; o_playlist_id: number | null }>`
    select outcome, o_session_id, o_token, o_playlist_id from glimpse_open_session(
      ${input.jobId}::text, ${cutoff}::text, ${sweepBefore}::text, ${hashes}::text[], ${input.resumeToken ?? null}::text,
      ${preview ? 1 : 0}::integer, ${input.acceptsNew !== false}::boolean, ${input.targetAccepted ?? null}::integer,
      ${input.playlistId}::integer, ${token}::text, ${i.platform}::text, ${input.bcheckId}::integer,
      ${input.freeTask ? 1 : 0}::integer, ${nowIso()}::text, ${participantKey(i)}::text, ${i.workerId ?? null}::text,
      ${i.assignmentId ?? null}::text, ${i.hitId ?? null}::text, ${i.turkSubmitTo ?? null}::text, ${i.PROLIFIC_PID ?? null}::text,
      ${i.STUDY_ID ?? null}::text, ${i.SESSION_ID ?? null}::text, ${i.email ?? null}::text)`.execute(db);
  const r = rows[0]!;
  switch (r.outcome) {
    case 'opened':
    case 'resumed':
      return { id: r.o_session_id!, token: r.o_token!, playlistId: r.o_playlist_id!, resumed: r.outcome === 'resumed' };
    case 'completed':
      return new AlreadyCompletedError();
    case 'not_open':
      return new JobNotOpenError();
    case 'full':
      return studyFull(input, r.o_playlist_id!);
    case 'no_playlist':
      return noPlaylist(input);
    case 'uncounted':
      return new UncountedJob();
  }
  return new Error(`glimpse_open_session answered ${r.outcome} for job ${input.jobId}`);
}

/**
 * 256 random bits, base64url. Never starting with '-' or '_': a token is also a command-line value
 * (`cli withdraw --token ...`), and an argument parser reads a leading '-' as an option.
 */
export function newSessionToken(): string {
  for (;;) {
    const token = randomBytes(32).toString('base64url');
    if (/^[A-Za-z0-9]/.test(token)) return token;
  }
}

/** The protocol name of a session's job (null for no such session). */
export async function sessionProtocol(storage: Storage, sessionId: number): Promise<string | null> {
  const row = await storage.db.selectFrom('sessions as s').innerJoin('jobs as j', 'j.id', 's.job_id').select('j.protocol').where('s.id', '=', sessionId).executeTakeFirst();
  return row?.protocol ?? null;
}

export async function findSessionById(storage: Storage, id: number): Promise<SessionRow | undefined> {
  return storage.db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findSessionByToken(storage: Storage, token: string): Promise<SessionRow | undefined> {
  return storage.db.selectFrom('sessions').selectAll().where('token', '=', token).executeTakeFirst();
}

/** Constant-time token comparison (the token is the session's only secret). */
export function tokenMatches(session: SessionRow, token: string): boolean {
  const a = Buffer.from(session.token);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Test stimuli of the session's playlist, in playlist order, with or without (`answered`) a stored answer. The
 * answer is a rating, or for a free-task bubble session (no rating is asked) its mouse log.
 */
async function testStimuliByAnswer(storage: Storage, session: SessionRow, answered: boolean): Promise<number[]> {
  const rows = await storage.db
    .selectFrom('stimuli as st')
    .select('st.id')
    .where('st.playlist_id', '=', session.playlist_id)
    .where('st.is_training', '=', 0)
    .where(({ not, exists, selectFrom }) => {
      const answer = exists(
        session.free_task
          ? selectFrom('screenings as a').select('a.id').where('a.session_id', '=', session.id).whereRef('a.stimulus_id', '=', 'st.id')
          : selectFrom('ratings as a').select('a.id').where('a.session_id', '=', session.id).whereRef('a.stimulus_id', '=', 'st.id'),
      );
      return answered ? answer : not(answer);
    })
    .orderBy('st.position')
    .execute();
  return rows.map((r) => r.id);
}

/** Test stimuli that have no stored answer yet, in playlist order (the code waits for none). */
export const missingAnswers = (storage: Storage, session: SessionRow) => testStimuliByAnswer(storage, session, false);

/** Test stimuli already answered, in playlist order (a resumed page goes on after them). */
export async function answeredStimuli(storage: Storage, sessionId: number): Promise<number[]> {
  const session = await findSessionById(storage, sessionId);
  return session ? testStimuliByAnswer(storage, session, true) : [];
}

/** Verification codes: 12 characters from a 31-letter alphabet without look-alikes (about 59 bits). */
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ3456789';
export function newVerificationCode(): string {
  return [...randomBytes(12)].map((b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join('');
}

/** Marks the session completed with a new code unless it already has one; returns the stored (stable) code. */
export async function completeSession(storage: Storage, sessionId: number): Promise<string> {
  return storage.write(async (trx) => {
    // One statement completes and reads what the count needs: fewer round trips while the session's row is locked.
    const completed = await trx
      .updateTable('sessions')
      .set({ completed_at: nowIso(), verification_code: newVerificationCode() })
      .where('id', '=', sessionId)
      .where('verification_code', 'is', null)
      .returning(['job_id', 'playlist_id', 'created_at', 'preview', 'verification_code'])
      .executeTakeFirst();
    if (completed) {
      if (completed.preview === 0) await countCompletion(storage, trx, completed);
      return completed.verification_code!;
    }
    const row = await trx.selectFrom('sessions').select('verification_code').where('id', '=', sessionId).executeTakeFirstOrThrow();
    return row.verification_code!;
  });
}
