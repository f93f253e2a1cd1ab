import type { Kysely } from 'kysely';
import type { SchemaMigration } from './migration.js';

// Quality control (docs/quality.md): the study's rules on its job, and the verdict of each session.
export const m005_quality: SchemaMigration = {
  name: '005_quality',
  async up(db: Kysely<any>) {
    await db.schema.alterTable('jobs').addColumn('quality', 'text').execute();
    await db.schema
      .createTable('session_verdicts')
      .addColumn('session_id', 'integer', (c) => c.primaryKey().references('sessions.id').onDelete('cascade'))
      .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
      .addColumn('accepted', 'integer', (c) => c.notNull())
      .addColumn('outcomes', 'text', (c) => c.notNull())
      .addColumn('evaluated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('session_verdicts_job').on('session_verdicts').columns(['job_id', 'accepted']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('session_verdicts').ifExists().execute();
    await db.schema.alterTable('jobs').dropColumn('quality').execute();
  },
};
