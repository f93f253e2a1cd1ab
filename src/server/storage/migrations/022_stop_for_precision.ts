import type { Kysely } from 'kysely';
import type { DialectName } from '../types.js';
import type { SchemaMigration } from './migration.js';

// Stopping for precision (issue 38, docs/quality.md): the running sums keep the squares of the scores too, so a
// stimulus's confidence interval is read from its own row; a job records when its precision rule closed it. Sums
// stored before lack their squares: they are marked stale, and the next verdict rebuilds them.
export const m022_stop_for_precision: SchemaMigration = {
  name: '022_stop_for_precision',
  async up(db: Kysely<any>, dialect: DialectName) {
    const real = dialect === 'postgres' ? 'double precision' : 'real';
    await db.schema.alterTable('accepted_score_sums').addColumn('score_squares', real, (c) => c.notNull().defaultTo(0)).execute();
    await db.updateTable('accepted_sessions').set({ stale: 1 }).execute();
    await db.schema.alterTable('jobs').addColumn('precision_reached_at', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('jobs').dropColumn('precision_reached_at').execute();
    await db.schema.alterTable('accepted_score_sums').dropColumn('score_squares').execute();
  },
};
