import type { Verdict } from '../../quality/rules.js';
import { countJudged } from './adaptive.js';
import { adjustIncluded, lockCounters } from './playlist-loads.js';
import { completedSessions, testRatingCounts, verdictRow, type RatingTotals } from './quality.js';
import type { Db, SessionRow, Storage } from './types.js';

/**
 * The running sums behind the on-line verdict's MOS (docs/quality.md): per job and analysis stimulus, the
 * sum and count of the ordinary scores of every session whose stored verdict includes it, and how many such
 * sessions there are. They change in the same transaction as the verdict that changes them, so a participant's
 * verdict reads the rows of their own stimuli instead of aggregating the job. `cli screen` and the console's
 * re-judge rebuild them from the stored verdicts (`rebuildAcceptedSums`).
 *
 * Locking (PostgreSQL): a change of the sums first updates the job's `accepted_sessions` row, so changes of one
 * job apply one after the other (a few statements each) and a rebuild, which locks that row first, never
 * interleaves with them. That row is the last step of the lock order (playlist-loads.ts): a verdict changes its
 * playlist's count before it.
 */

/** Per analysis stimulus: the sum of the scores, of their squares (stopping for precision), and how many there are. */
export type ScoreSums = Map<string, { sum: number; squares: number; n: number }>;

export interface AcceptedSums {
  /** Included sessions counted in the sums. */
  sessions: number;
  byStimulus: ScoreSums;
}

/** A stored row's sums (PostgreSQL's numbers may come back as strings). */
const sumsOf = (r: { score_sum: number; score_squares: number; ratings: number }) => ({ sum: Number(r.score_sum), squares: Number(r.score_squares), n: Number(r.ratings) });

/** The sums of these stimuli and the count of included sessions; null when they must be rebuilt first. */
export async function acceptedSums(storage: Storage, jobId: string, stimuli: readonly string[]): Promise<AcceptedSums | null> {
  const job = await storage.db.selectFrom('accepted_sessions').select(['sessions', 'stale']).where('job_id', '=', jobId).executeTakeFirst();
  if (!job || job.stale === 1) return null;
  const byStimulus: ScoreSums = new Map();
  const wanted = [...new Set(stimuli)];
  for (let i = 0; i < wanted.length; i += 500) {
    const rows = await storage.db
      .selectFrom('accepted_score_sums')
      .select(['stimulus', 'score_sum', 'score_squares', 'ratings'])
      .where('job_id', '=', jobId)
      .where('stimulus', 'in', wanted.slice(i, i + 500))
      .execute();
    for (const r of rows) byStimulus.set(r.stimulus, sumsOf(r));
  }
  return { sessions: Number(job.sessions), byStimulus };
}

/** Every sum of a job (tests compare them with a rebuild). */
export async function allAcceptedSums(storage: Storage, jobId: string): Promise<AcceptedSums | null> {
  const job = await storage.db.selectFrom('accepted_sessions').select('sessions').where('job_id', '=', jobId).executeTakeFirst();
  if (!job) return null;
  const rows = await storage.db.selectFrom('accepted_score_sums').select(['stimulus', 'score_sum', 'score_squares', 'ratings']).where('job_id', '=', jobId).execute();
  return { sessions: Number(job.sessions), byStimulus: new Map(rows.map((r) => [r.stimulus, sumsOf(r)])) };
}

/**
 * Adds (sign 1) or removes (sign -1) one session's scores. Nothing when the job has no sums row (a job imported
 * before migration 013 whose row a rebuild is creating: the rebuild counts the session from its stored verdict).
 */
async function moveSession(trx: Db, jobId: string, own: ScoreSums, sign: 1 | -1): Promise<void> {
  const counted = await trx.updateTable('accepted_sessions').set((eb) => ({ sessions: eb('sessions', '+', sign) })).where('job_id', '=', jobId).executeTakeFirst();
  if (Number(counted.numUpdatedRows) === 0 || own.size === 0) return;
  // One statement for every stimulus: the job's row above stays locked until the commit, so every round trip after
  // it would keep the job's other verdicts waiting (sorted: rows are taken in one order).
  const rows = [...own.keys()].sort().map((stimulus) => {
    const s = own.get(stimulus)!;
    return { job_id: jobId, stimulus, score_sum: sign * s.sum, score_squares: sign * s.squares, ratings: sign * s.n };
  });
  await trx
    .insertInto('accepted_score_sums')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['job_id', 'stimulus']).doUpdateSet((eb) => ({
        score_sum: eb('accepted_score_sums.score_sum', '+', eb.ref('excluded.score_sum')),
        score_squares: eb('accepted_score_sums.score_squares', '+', eb.ref('excluded.score_squares')),
        ratings: eb('accepted_score_sums.ratings', '+', eb.ref('excluded.ratings')),
      })),
    )
    .execute();
}

type JudgedSession = Pick<SessionRow, 'id' | 'job_id' | 'playlist_id' | 'preview'>;

/**
 * Stores a session's first verdict with its effect on the sums and on its playlist's balancing count (and, with
 * `settlesPending`, on an adaptive design's pending comparisons: storage/adaptive.ts), in one transaction; false (nothing changed) when the session already has a verdict: concurrent final requests of one
 * session (the code, its logs, a retry) judge it once.
 */
export async function storeFirstVerdict(storage: Storage, session: JudgedSession, verdict: Verdict, own: ScoreSums, settlesPending = false): Promise<boolean> {
  return storage.write(async (trx) => {
    const inserted = await trx.insertInto('session_verdicts').values(verdictRow(session, verdict)).onConflict((oc) => oc.column('session_id').doNothing()).executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
    if (session.preview === 1) return true;
    // In the lock order (playlist-loads.ts): the playlist's count, the pending comparisons, the job's sums.
    if (verdict.included) {
      if (settlesPending) await countJudged(trx, session.job_id, own);
      await moveSession(trx, session.job_id, own, 1);
    } else {
      // Completion counted the session as included in its playlist's load; an excluded one needs another observer.
      await adjustIncluded(storage, trx, session, -1);
      if (settlesPending) await countJudged(trx, session.job_id, own);
    }
    return true;
  });
}

/**
 * Replaces a session's stored verdict with `revise(old)` (null: keep it), moving the session's scores in or out of
 * the sums and its playlist's count when the analysis verdict changes. Returns the verdict now stored (null: none).
 */
export async function reviseVerdict(storage: Storage, session: JudgedSession, revise: (old: Verdict) => Verdict | null, own: ScoreSums): Promise<Verdict | null> {
  return storage.write(async (trx) => {
    let query = trx.selectFrom('session_verdicts').select(['accepted', 'included', 'outcomes']).where('session_id', '=', session.id);
    if (storage.dialect === 'postgres') query = query.forUpdate();
    const row = await query.executeTakeFirst();
    if (!row) return null;
    const old: Verdict = { approved: row.accepted === 1, included: row.included === 1, outcomes: JSON.parse(row.outcomes) };
    const next = revise(old);
    if (!next) return old;
    const { session_id: _, job_id: __, ...changes } = verdictRow(session, next);
    await trx.updateTable('session_verdicts').set(changes).where('session_id', '=', session.id).execute();
    if (session.preview !== 1 && next.included !== old.included) {
      // The lock order: the playlist's count, then the job's sums (a withdrawal takes them so).
      await adjustIncluded(storage, trx, session, next.included ? 1 : -1);
      await moveSession(trx, session.job_id, own, next.included ? 1 : -1);
    }
    return next;
  });
}

/** The test ratings of the job's sessions whose stored verdict includes them, counted per stimulus and value. */
export type IncludedRatingCount = RatingTotals['counts'][number];

/**
 * Builds the job's sums anew from the stored verdicts (only sessions judged and included count: a session still
 * being judged adds itself when its verdict is stored). `scoresOf` turns the counts into scores (the protocol's
 * analysis adapter). Runs under the job's `accepted_sessions` row, so no verdict change interleaves.
 */
export async function rebuildAcceptedSums(storage: Storage, jobId: string, scoresOf: (rows: IncludedRatingCount[]) => ScoreSums): Promise<void> {
  await storage.write(async (trx) => {
    await trx.insertInto('accepted_sessions').values({ job_id: jobId, sessions: 0 }).onConflict((oc) => oc.column('job_id').doNothing()).execute();
    await lockCounters(storage, trx, [jobId], ['accepted_sessions']);
    const included = completedSessions(trx, jobId).innerJoin('session_verdicts as v', 'v.session_id', 's.id').select('s.id').where('v.included', '=', 1);
    const sessions = await trx.selectFrom(included.as('i')).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const sums = scoresOf(await testRatingCounts(trx, included));
    await trx.updateTable('accepted_sessions').set({ sessions: Number(sessions.n), stale: 0 }).where('job_id', '=', jobId).execute();
    await trx.deleteFrom('accepted_score_sums').where('job_id', '=', jobId).execute();
    const rows = [...sums].map(([stimulus, s]) => ({ job_id: jobId, stimulus, score_sum: s.sum, score_squares: s.squares, ratings: s.n }));
    for (let i = 0; i < rows.length; i += 500) await trx.insertInto('accepted_score_sums').values(rows.slice(i, i + 500)).execute();
  });
}

/** A new job starts with empty sums. */
export async function startAcceptedSums(trx: Db, jobId: string): Promise<void> {
  await trx.insertInto('accepted_sessions').values({ job_id: jobId, sessions: 0, stale: 0 }).onConflict((oc) => oc.column('job_id').doNothing()).execute();
}

/** Sessions these jobs' sums counted were deleted (a withdrawal): the next reader rebuilds them. */
export async function markSumsStale(trx: Db, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length > 0) await trx.updateTable('accepted_sessions').set({ stale: 1 }).where('job_id', 'in', [...jobIds]).execute();
}
