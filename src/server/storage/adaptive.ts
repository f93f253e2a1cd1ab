import type { Db } from './types.js';

/**
 * What an adaptive design's arrivals read and write (server/adaptive, docs/adaptive.md), always inside the arrival's
 * transaction, under the job's lock: the included comparisons (the running sums of pair answers), the comparisons
 * handed out and not judged yet, the study's playlist of training and checks, and the participant's own playlist.
 */

export interface PairCounts {
  /** Per pair key (adaptive/design.ts): included comparisons and wins of the second option. */
  judged: Map<string, { n: number; secondWins: number }>;
  /** Per pair key: comparisons handed out to sessions and not judged yet. */
  pending: Map<string, number>;
}

/** The job's included comparisons and pending ones. */
export async function pairCounts(trx: Db, jobId: string): Promise<PairCounts> {
  const sums = await trx.selectFrom('accepted_score_sums').select(['stimulus', 'score_sum', 'ratings']).where('job_id', '=', jobId).execute();
  const handedOut = await trx.selectFrom('adaptive_pending').select(['pair', 'assigned', 'judged']).where('job_id', '=', jobId).execute();
  return {
    judged: new Map(sums.map((r) => [r.stimulus, { n: Number(r.ratings), secondWins: Number(r.score_sum) }])),
    pending: new Map(handedOut.map((r) => [r.pair, Math.max(0, Number(r.assigned) - Number(r.judged))])),
  };
}

/** Adds comparisons handed out (`column` assigned) or judged, per pair key. */
async function addToPending(trx: Db, jobId: string, counts: ReadonlyMap<string, number>, column: 'assigned' | 'judged'): Promise<void> {
  // Sorted: rows are locked in one order by every writer (PostgreSQL).
  const rows = [...counts].filter(([, n]) => n > 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (let i = 0; i < rows.length; i += 500) {
    await trx
      .insertInto('adaptive_pending')
      .values(rows.slice(i, i + 500).map(([pair, n]) => ({ job_id: jobId, pair, [column]: n })))
      .onConflict((oc) => oc.columns(['job_id', 'pair']).doUpdateSet((eb) => ({ [column]: eb(`adaptive_pending.${column}`, '+', eb.ref(`excluded.${column}`)) })))
      .execute();
  }
}

/** A participant was handed these comparisons (per pair key). */
export const countHandedOut = (trx: Db, jobId: string, pairs: ReadonlyMap<string, number>) => addToPending(trx, jobId, pairs, 'assigned');

/** A session's first verdict: its comparisons are judged (included or not), no longer pending. */
export const countJudged = (trx: Db, jobId: string, own: ReadonlyMap<string, { n: number }>) => addToPending(trx, jobId, new Map([...own].map(([pair, s]) => [pair, s.n])), 'judged');

export interface TemplateStimulus {
  isTraining: boolean;
  spec: string;
}

/** The study's own playlist of an adaptive design: its training and checks, in study order. */
export async function designTemplate(trx: Db, jobId: string): Promise<TemplateStimulus[]> {
  const rows = await trx
    .selectFrom('stimuli as st')
    .innerJoin('playlists as p', 'p.id', 'st.playlist_id')
    .select(['st.is_training', 'st.spec'])
    .where('p.job_id', '=', jobId)
    .where('p.adaptive', '=', 0)
    .orderBy('p.position')
    .orderBy('st.is_training')
    .orderBy('st.position')
    .execute();
  return rows.map((r) => ({ isTraining: r.is_training === 1, spec: r.spec }));
}

/**
 * Stores a participant's own playlist (test stimuli then training, each in the order given) with its balancing row;
 * returns its id. Its position is below every other (study playlists count up from 0).
 */
export async function createOwnPlaylist(trx: Db, jobId: string, test: readonly string[], training: readonly string[]): Promise<number> {
  const lowest = await trx.selectFrom('playlists').select((eb) => eb.fn.min('position').as('position')).where('job_id', '=', jobId).executeTakeFirst();
  const position = Math.min(Number(lowest?.position ?? 0), 0) - 1;
  const { id } = await trx.insertInto('playlists').values({ job_id: jobId, position, adaptive: 1 }).returning('id').executeTakeFirstOrThrow();
  const rows = [
    ...test.map((spec, k) => ({ playlist_id: id, is_training: 0, position: k, spec })),
    ...training.map((spec, k) => ({ playlist_id: id, is_training: 1, position: k, spec })),
  ];
  for (let i = 0; i < rows.length; i += 500) await trx.insertInto('stimuli').values(rows.slice(i, i + 500)).execute();
  await trx.insertInto('playlist_loads').values({ playlist_id: id, job_id: jobId, sessions: 0, included: 0, running: 0 }).execute();
  return id;
}
