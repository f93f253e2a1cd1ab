import type { Storage } from '../src/server/storage/types.js';

/** Row counts of the answer tables (to check that a refused request stored nothing). */
export async function countRows(storage: Storage, table: 'ratings' | 'screenings' | 'session_logs' | 'consents' | 'bchecks' | 'sessions'): Promise<number> {
  const row = await storage.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
