import type { Kysely } from 'kysely';
import type { SchemaMigration } from './migration.js';

// The study file a job was imported from: another file with the same id replaces it only with --replace.
export const m007_job_source: SchemaMigration = {
  name: '007_job_source',
  async up(db: Kysely<any>) {
    await db.schema.alterTable('jobs').addColumn('source', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('jobs').dropColumn('source').execute();
  },
};
