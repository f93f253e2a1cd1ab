import type { Kysely } from 'kysely';
import type { SchemaMigration } from './migration.js';

// Browsers that signed in to an account before (OWASP's device cookies): the sign-in back-off never refuses
// them for what other addresses sent (storage/sign-in-attempts.ts).
export const m019_known_browsers: SchemaMigration = {
  name: '019_known_browsers',
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('known_browsers')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('last_sign_in_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('known_browsers_last_sign_in_at').on('known_browsers').column('last_sign_in_at').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('known_browsers').ifExists().execute();
  },
};
