import type { Kysely } from 'kysely';
import type { SchemaMigration } from './migration.js';

// Previews (docs/console.md): a researcher runs the study as a participant; the session is marked and kept out
// of balancing, statistics, screening and exports. A preview link's token is kept hashed, for a day.
export const m012_preview_sessions: SchemaMigration = {
  name: '012_preview_sessions',
  async up(db: Kysely<any>) {
    await db.schema.alterTable('sessions').addColumn('preview', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema
      .createTable('preview_links')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('preview_links').ifExists().execute();
    await db.schema.alterTable('sessions').dropColumn('preview').execute();
  },
};
