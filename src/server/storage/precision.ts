import type { ScoreMoments } from '../../analysis/precision.js';
import { completedSessions, testRatingCounts, type RatingTotals } from './quality.js';
import { nowIso, type Storage } from './types.js';

/**
 * What stopping for precision reads and writes (server/quality/precision.ts): the running sums' moments, the
 * included sessions' answers counted per stimulus and value, and the time the rule closed the job.
 */

/** Per analysis stimulus: count, sum and sum of squares of the included scores; null when the sums must be rebuilt. */
export async function scoreMoments(storage: Storage, jobId: string): Promise<Map<string, ScoreMoments> | null> {
  const job = await storage.db.selectFrom('accepted_sessions').select('stale').where('job_id', '=', jobId).executeTakeFirst();
  if (!job || job.stale === 1) return null;
  const rows = await storage.db.selectFrom('accepted_score_sums').select(['stimulus', 'score_sum', 'score_squares', 'ratings']).where('job_id', '=', jobId).execute();
  return new Map(rows.map((r) => [r.stimulus, { n: Number(r.ratings), sum: Number(r.score_sum), squares: Number(r.score_squares) }]));
}

/** The test answers of the sessions whose stored verdict includes them, counted per stimulus and value. */
export function includedRatingCounts(storage: Storage, jobId: string): Promise<RatingTotals['counts']> {
  const db = storage.db;
  const included = completedSessions(db, jobId).innerJoin('session_verdicts as v', 'v.session_id', 's.id').select('s.id').where('v.included', '=', 1);
  return testRatingCounts(db, included);
}

/** Records that the job's precision rule closed it, once; returns the time stored (an earlier one stands). */
export async function markPrecisionReached(storage: Storage, jobId: string): Promise<string> {
  await storage.write((trx) => trx.updateTable('jobs').set({ precision_reached_at: nowIso() }).where('id', '=', jobId).where('precision_reached_at', 'is', null).execute());
  const row = await storage.db.selectFrom('jobs').select('precision_reached_at').where('id', '=', jobId).executeTakeFirstOrThrow();
  return row.precision_reached_at!;
}

/** Each playlist's balancing counts (storage/playlist-loads.ts), read without the arrival's lock: a preference only. */
export function playlistLoadRows(storage: Storage, jobId: string) {
  return storage.db.selectFrom('playlist_loads').select(['playlist_id', 'included', 'running']).where('job_id', '=', jobId).orderBy('playlist_id').execute();
}
