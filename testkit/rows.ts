import type { Storage } from '../src/server/storage/types.js';

/** Row counts of the answer tables (to check that a refused request stored nothing). */
export async function countRows(storage: Storage, table: 'ratings' | 'screenings' | 'session_logs' | 'session_log_pages' | 'mouse_log_pages' | 'consents' | 'bchecks' | 'sessions'): Promise<number> {
  const row = await storage.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The stored ratings of these ids (what an acknowledgement named), with what they answered. */
export async function ratingsById(storage: Storage, ids: number[]): Promise<Map<number, { session_id: number; stimulus_id: number; value: number }>> {
  const found = new Map<number, { session_id: number; stimulus_id: number; value: number }>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await storage.db.selectFrom('ratings').select(['id', 'session_id', 'stimulus_id', 'value']).where('id', 'in', ids.slice(i, i + 1000)).execute();
    for (const r of rows) found.set(r.id, r);
  }
  return found;
}
