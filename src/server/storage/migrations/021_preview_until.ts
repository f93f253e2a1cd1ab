import type { Kysely } from 'kysely';
import type { SchemaMigration } from './migration.js';

// A preview session ends with its link (issue 34): it takes answers until the link it came from expires.
export const m021_preview_until: SchemaMigration = {
  name: '021_preview_until',
  async up(db: Kysely<any>) {
    await db.schema.alterTable('sessions').addColumn('preview_until', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('sessions').dropColumn('preview_until').execute();
  },
};
