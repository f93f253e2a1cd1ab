import type { Kysely } from 'kysely';
import type { SchemaMigration } from './migration.js';

// Adaptive pair-comparison jobs (issue 38, docs/adaptive.md): a job keeps its study's design; the playlists made for
// one participant each are marked (re-imports and the console's playlist lists leave them alone); the comparisons
// handed out and not judged yet are counted per pair. The running sums now hold pair answers too (per pair of
// options, the count and the wins of the second): every job's sums are marked stale, and the next verdict rebuilds
// them.
export const m023_adaptive_design: SchemaMigration = {
  name: '023_adaptive_design',
  async up(db: Kysely<any>) {
    await db.schema.alterTable('jobs').addColumn('design', 'text').execute();
    await db.schema.alterTable('playlists').addColumn('adaptive', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema
      .createTable('adaptive_pending')
      .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
      .addColumn('pair', 'text', (c) => c.notNull())
      .addColumn('assigned', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('judged', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('adaptive_pending_pk', ['job_id', 'pair'])
      .execute();
    await db.updateTable('accepted_sessions').set({ stale: 1 }).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('adaptive_pending').execute();
    await db.schema.alterTable('playlists').dropColumn('adaptive').execute();
    await db.schema.alterTable('jobs').dropColumn('design').execute();
  },
};
