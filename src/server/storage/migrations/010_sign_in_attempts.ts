import type { Kysely } from 'kysely';
import type { SchemaMigration } from './migration.js';

// Sign-in attempts counted before their password is checked (storage/sign-in-attempts.ts): per e-mail and address,
// and per e-mail. Replaces users.failed_logins / locked_until, which no longer decide anything.
export const m010_sign_in_attempts: SchemaMigration = {
  name: '010_sign_in_attempts',
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('sign_in_attempts')
      .addColumn('key_hash', 'text', (c) => c.primaryKey())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('last_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sign_in_attempts_last_at').on('sign_in_attempts').column('last_at').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('sign_in_attempts').ifExists().execute();
  },
};
