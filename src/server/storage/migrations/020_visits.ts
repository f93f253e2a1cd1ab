import type { Kysely } from 'kysely';
import type { DialectName } from '../types.js';
import { withId, type SchemaMigration } from './migration.js';

// Visits (issue 35): a link opened by someone still on the eligibility screen is logged here, not as a
// session, so it holds no playlist slot and no lease (storage/visits.ts).
export const m020_visits: SchemaMigration = {
  name: '020_visits',
  async up(db: Kysely<any>, dialect: DialectName) {
    await withId(dialect, db.schema.createTable('visits'))
      .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
      .addColumn('token', 'text', (c) => c.notNull().unique())
      .addColumn('platform', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text')
      .execute();
    await db.schema.createIndex('visits_job_started').on('visits').columns(['job_id', 'started_at']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('visits').ifExists().execute();
  },
};
