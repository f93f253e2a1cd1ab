import { statesOfClasses } from '../body/log-summary.mjs';
import { sql, type SelectQueryBuilder } from 'kysely';
import type { RuleOutcome, Verdict } from '../../quality/rules.js';
import { lockCounters } from './playlist-loads.js';
import { nowIso, type Db, type SessionRow, type Storage } from './types.js';

/**
 * What quality control reads and writes (server/quality/): a session's answers and logs as the rules need them, the
 * job's rating totals for the MOS, and the verdict of each session.
 */

export interface StoredVerdict {
  sessionId: number;
  /** Payment. */
  approved: boolean;
  /** Analysis. */
  included: boolean;
  outcomes: RuleOutcome[];
  evaluatedAt: string;
}

/** The `session_verdicts` row of a verdict. */
export const verdictRow = (session: Pick<SessionRow, 'id' | 'job_id'>, verdict: Verdict) => ({
  session_id: session.id,
  job_id: session.job_id,
  accepted: verdict.approved ? 1 : 0,
  included: verdict.included ? 1 : 0,
  outcomes: JSON.stringify(verdict.outcomes),
  evaluated_at: nowIso(),
});

/**
 * Stores (or replaces) the verdicts of a job's sessions in one transaction and returns the ids stored: a session
 * withdrawn since it was judged is skipped (its verdict would name a deleted session). The lock order
 * (playlist-loads.ts): the job's loads first, so a withdrawal under way commits before the sessions are read and
 * one that comes later waits for this commit (then deletes the verdict with its session); the sessions' rows are
 * kept (FOR KEY SHARE) until the commit in any case.
 */
export async function saveVerdicts(storage: Storage, jobId: string, verdicts: ReadonlyArray<{ sessionId: number; verdict: Verdict }>): Promise<number[]> {
  if (verdicts.length === 0) return [];
  return storage.write(async (trx) => {
    await lockCounters(storage, trx, [jobId], ['job_loads']);
    const stored: number[] = [];
    const sorted = [...verdicts].sort((a, b) => a.sessionId - b.sessionId);
    for (let i = 0; i < sorted.length; i += 500) {
      const chunk = sorted.slice(i, i + 500);
      let present = trx.selectFrom('sessions').select('id').where('id', 'in', chunk.map((v) => v.sessionId)).orderBy('id');
      if (storage.dialect === 'postgres') present = present.forKeyShare();
      const live = new Set((await present.execute()).map((r) => r.id));
      const rows = chunk.filter((v) => live.has(v.sessionId)).map((v) => verdictRow({ id: v.sessionId, job_id: jobId }, v.verdict));
      if (rows.length === 0) continue;
      await trx
        .insertInto('session_verdicts')
        .values(rows)
        .onConflict((oc) =>
          oc.column('session_id').doUpdateSet((eb) => ({
            accepted: eb.ref('excluded.accepted'),
            included: eb.ref('excluded.included'),
            outcomes: eb.ref('excluded.outcomes'),
            evaluated_at: eb.ref('excluded.evaluated_at'),
          })),
        )
        .execute();
      stored.push(...rows.map((r) => r.session_id));
    }
    return stored;
  });
}

/** The stored verdict of a session; null when it has none. */
export async function storedVerdict(storage: Storage, sessionId: number): Promise<Verdict | null> {
  const row = await storage.db.selectFrom('session_verdicts').select(['accepted', 'included', 'outcomes']).where('session_id', '=', sessionId).executeTakeFirst();
  return row ? { approved: row.accepted === 1, included: row.included === 1, outcomes: JSON.parse(row.outcomes) as RuleOutcome[] } : null;
}

/** Every verdict of a job, by session id. */
export async function jobVerdicts(storage: Storage, jobId: string): Promise<Map<number, StoredVerdict>> {
  const rows = await storage.db.selectFrom('session_verdicts').selectAll().where('job_id', '=', jobId).execute();
  return new Map(
    rows.map((r) => [r.session_id, { sessionId: r.session_id, approved: r.accepted === 1, included: r.included === 1, outcomes: JSON.parse(r.outcomes) as RuleOutcome[], evaluatedAt: r.evaluated_at }]),
  );
}

/** The completed sessions of a job, in completion order. */
export async function completedSessionIds(storage: Storage, jobId: string): Promise<number[]> {
  const rows = await storage.db
    .selectFrom('sessions')
    .select('id')
    .where('job_id', '=', jobId)
    .where('preview', '=', 0)
    .where('completed_at', 'is not', null)
    .orderBy('completed_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

export interface ScreeningAnswerRow {
  stimulus_id: number;
  spec: string;
  /** The rating value; for a free-task bubble session (no rating) the screening number. */
  value: number;
  timing: string | null;
  logs: string | null;
  /** The camera poses of a 3D stimulus (ViewsRecord JSON); null otherwise. */
  views: string | null;
}

/** The test answers of a session: its ratings, or for a free-task bubble session its mouse logs. */
export async function sessionTestAnswers(storage: Storage, sessionId: number, freeTask: boolean): Promise<ScreeningAnswerRow[]> {
  if (freeTask) {
    return storage.db
      .selectFrom('screenings as a')
      .innerJoin('stimuli as st', 'st.id', 'a.stimulus_id')
      .select(['a.stimulus_id', 'st.spec', 'a.screening_no as value', 'a.timing', sql<null>`null`.as('logs'), sql<null>`null`.as('views')])
      .where('a.session_id', '=', sessionId)
      .where('st.is_training', '=', 0)
      .orderBy('a.id')
      .execute();
  }
  return storage.db
    .selectFrom('ratings as a')
    .innerJoin('stimuli as st', 'st.id', 'a.stimulus_id')
    .select(['a.stimulus_id', 'st.spec', 'a.value', 'a.timing', 'a.logs', 'a.views'])
    .where('a.session_id', '=', sessionId)
    .where('st.is_training', '=', 0)
    .orderBy('a.id')
    .execute();
}

/** The state changes of every session-logs post of a session, in order, reduced to what the visual-test verdict reads. */
export async function sessionLogStates(storage: Storage, sessionId: number): Promise<Array<{ state: string; status: string }>> {
  // The states as stored beside each post (body/log-summary.mjs): no log body is parsed on the event loop.
  const rows = await storage.db.selectFrom('session_logs').select('state_classes').where('session_id', '=', sessionId).orderBy('id').execute();
  return statesOfClasses(rows.map((r) => r.state_classes ?? '').join(''));
}

export interface RatingTotals {
  /** Completed sessions that are included in the analysis (their ratings make the MOS). */
  sessions: number[];
  /** How many times each stimulus got each value from those sessions. */
  counts: Array<{ stimulus_id: number; spec: string; value: number; n: number }>;
}

/** The test ratings of the job's completed sessions that quality control has not excluded, counted per value. */
export async function acceptedRatingTotals(storage: Storage, jobId: string): Promise<RatingTotals> {
  const accepted = completedSessions(storage.db, jobId)
    .leftJoin('session_verdicts as v', 'v.session_id', 's.id')
    .select('s.id')
    .where((eb) => eb.or([eb('v.included', 'is', null), eb('v.included', '=', 1)]));
  const [sessions, counts] = await Promise.all([accepted.execute(), testRatingCounts(storage.db, accepted)]);
  return { sessions: sessions.map((s) => s.id), counts };
}

/** The completed sessions of a job, previews left out: those whose ratings a verdict's MOS may count. */
export const completedSessions = (db: Db, jobId: string) =>
  db.selectFrom('sessions as s').where('s.job_id', '=', jobId).where('s.preview', '=', 0).where('s.completed_at', 'is not', null);

/**
 * How many times each test stimulus got each value from these sessions (the batch totals, the running sums).
 * `sessions`: a one-column select of session ids (each caller's aliases give it a different Kysely type).
 */
export async function testRatingCounts(db: Db, sessions: SelectQueryBuilder<any, any, { id: number }>): Promise<RatingTotals['counts']> {
  const counts = await db
    .selectFrom('ratings as r')
    .innerJoin('stimuli as st', 'st.id', 'r.stimulus_id')
    .select(['r.stimulus_id', 'st.spec', 'r.value', (eb) => eb.fn.countAll<number>().as('n')])
    .where('r.session_id', 'in', sessions)
    .where('st.is_training', '=', 0)
    .groupBy(['r.stimulus_id', 'st.spec', 'r.value'])
    .execute();
  return counts.map((c) => ({ ...c, n: Number(c.n) }));
}

export interface DecisionRow {
  session_id: number;
  playlist_id: number;
  platform: string;
  completed_at: string | null;
  verification_code: string | null;
  worker_id: string | null;
  assignment_id: string | null;
  hit_id: string | null;
  prolific_pid: string | null;
  study_id: string | null;
  prolific_session_id: string | null;
  /** Payment verdict: 1 approved, 0 rejected, null not judged. */
  accepted: number | null;
  /** Analysis verdict: 1 included, 0 excluded, null not judged. */
  included: number | null;
  outcomes: string | null;
}

/** Every completed session of a job with its platform identity and verdict, for the platforms' decision lists. */
export async function decisionRows(storage: Storage, jobId: string): Promise<DecisionRow[]> {
  return storage.db
    .selectFrom('sessions as s')
    .leftJoin('session_identities as i', 'i.session_id', 's.id')
    .leftJoin('session_verdicts as v', 'v.session_id', 's.id')
    .select([
      's.id as session_id',
      's.playlist_id',
      's.platform',
      's.completed_at',
      's.verification_code',
      'i.worker_id',
      'i.assignment_id',
      'i.hit_id',
      'i.prolific_pid',
      'i.study_id',
      'i.prolific_session_id',
      'v.accepted',
      'v.included',
      'v.outcomes',
    ])
    .where('s.job_id', '=', jobId)
    .where('s.preview', '=', 0)
    .where('s.completed_at', 'is not', null)
    .orderBy('s.completed_at')
    .orderBy('s.id')
    .execute();
}

/** The sessions of a job that stored at least one answer, with whether they completed (the report's observers). */
export async function sessionsWithAnswers(storage: Storage, jobId: string): Promise<Array<{ id: number; completed: boolean }>> {
  const rows = await storage.db
    .selectFrom('sessions as s')
    .select(['s.id', 's.completed_at'])
    .where('s.job_id', '=', jobId)
    .where('s.preview', '=', 0)
    .where((eb) =>
      eb.or([
        eb.exists(eb.selectFrom('ratings as r').select('r.id').whereRef('r.session_id', '=', 's.id')),
        eb.exists(eb.selectFrom('screenings as m').select('m.id').whereRef('m.session_id', '=', 's.id')),
      ]),
    )
    .orderBy('s.id')
    .execute();
  return rows.map((r) => ({ id: r.id, completed: r.completed_at !== null }));
}
