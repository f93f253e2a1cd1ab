import type { Storage } from '../src/server/storage/types.js';

/**
 * Rows written straight into the database for the benchmarks (bench/analysis): completed sessions and their
 * ratings by chunked inserts, so that jobs of a hundred thousand answers exist in seconds, with no HTTP.
 */

const INSERT_CHUNK = 1000;

export interface BulkRating {
  session_id: number;
  stimulus_id: number;
  dedupe_key: string;
  value: number;
  nb_replay: number;
  logs: string;
  timing: string;
  created_at: string;
}

/** Completed sessions of a job, one per observer, spread over its playlists in turn; returns [sessionId, playlistIndex]. */
export async function insertCompletedSessions(storage: Storage, jobId: string, observers: number, at: string): Promise<Array<{ id: number; playlist: number }>> {
  const playlists = await storage.db.selectFrom('playlists').select(['id', 'position']).where('job_id', '=', jobId).orderBy('position').execute();
  const rows = Array.from({ length: observers }, (_, o) => ({
    job_id: jobId,
    playlist_id: playlists[o % playlists.length]!.id,
    token: `${jobId}-token-${o}`,
    platform: 'prolific',
    bcheck_id: null,
    free_task: 0,
    created_at: at,
    completed_at: at,
    verification_code: null,
  }));
  const sessions: Array<{ id: number; playlist: number }> = [];
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const ids = await storage.db.insertInto('sessions').values(rows.slice(i, i + INSERT_CHUNK)).returning('id').execute();
    ids.forEach(({ id }, k) => sessions.push({ id, playlist: (i + k) % playlists.length }));
  }
  return sessions;
}

/** The stimuli of a job per playlist, in position order, with their stored spec. */
export async function stimuliByPlaylist(storage: Storage, jobId: string): Promise<Array<Array<{ id: number; spec: string }>>> {
  const rows = await storage.db
    .selectFrom('stimuli as st')
    .innerJoin('playlists as p', 'p.id', 'st.playlist_id')
    .select(['st.id', 'st.spec', 'p.position as playlist'])
    .where('p.job_id', '=', jobId)
    .orderBy('p.position')
    .orderBy('st.position')
    .execute();
  const byPlaylist: Array<Array<{ id: number; spec: string }>> = [];
  for (const r of rows) (byPlaylist[r.playlist] ??= []).push({ id: r.id, spec: r.spec });
  return byPlaylist;
}

/** Inserts ratings as they are generated, a chunk per statement and many chunks per transaction. */
export class BulkRatingWriter {
  private rows: BulkRating[] = [];
  count = 0;
  constructor(private storage: Storage) {}
  async add(row: BulkRating): Promise<void> {
    this.rows.push(row);
    if (this.rows.length >= 20 * INSERT_CHUNK) await this.flush();
  }
  async flush(): Promise<void> {
    const rows = this.rows;
    this.rows = [];
    if (rows.length === 0) return;
    await this.storage.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) await trx.insertInto('ratings').values(rows.slice(i, i + INSERT_CHUNK)).execute();
    });
    this.count += rows.length;
  }
}
