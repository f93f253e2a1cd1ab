import type { Kysely } from 'kysely';
import type { DialectName } from '../types.js';
import { withId, type SchemaMigration } from './migration.js';

// What stays of a completed session after `cli withdraw` (storage/withdrawals.ts): enough to refuse a retake.
export const m002_withdrawals: SchemaMigration = {
  name: '002_withdrawals',
  async up(db: Kysely<any>, dialect: DialectName) {
    await withId(dialect, db.schema.createTable('withdrawals'))
      .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
      .addColumn('participant_hash', 'text')
      .addColumn('code_hash', 'text')
      .addColumn('session_started_at', 'text', (c) => c.notNull())
      .addColumn('withdrawn_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('withdrawals_participant').on('withdrawals').columns(['participant_hash', 'job_id']).execute();
    await db.schema.createIndex('withdrawals_code').on('withdrawals').column('code_hash').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('withdrawals').ifExists().execute();
  },
};
