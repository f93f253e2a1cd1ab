import type { Kysely } from 'kysely';
import type { SchemaMigration } from './migration.js';

// The media files of each job as imported: their size (the playlist sends it, so the loading screen knows the
// total from the first byte) and their attributes for the analysis.
export const m004_job_media: SchemaMigration = {
  name: '004_job_media',
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('job_media')
      .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('bytes', 'bigint', (c) => c.notNull())
      // The study file's mediaAttributes of this file (JSON text), null when it declares none.
      .addColumn('attributes', 'text')
      .addPrimaryKeyConstraint('job_media_pk', ['job_id', 'path'])
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('job_media').ifExists().execute();
  },
};
