import type { Kysely } from 'kysely';
import type { SchemaMigration } from './migration.js';

// The frame-timing envelope of each answer (contract TimingEnvelope), beside the SPEC's logs text.
export const m003_answer_timing: SchemaMigration = {
  name: '003_answer_timing',
  async up(db: Kysely<any>) {
    await db.schema.alterTable('ratings').addColumn('timing', 'text').execute();
    await db.schema.alterTable('screenings').addColumn('timing', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('ratings').dropColumn('timing').execute();
    await db.schema.alterTable('screenings').dropColumn('timing').execute();
  },
};
