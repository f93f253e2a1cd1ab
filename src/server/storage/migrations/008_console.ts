import type { Kysely } from 'kysely';
import type { DialectName } from '../types.js';
import { withId, type SchemaMigration } from './migration.js';

// The researcher console (docs/console.md): accounts, signed-in sessions, roles per job, and the job's status.
export const m008_console: SchemaMigration = {
  name: '008_console',
  async up(db: Kysely<any>, dialect: DialectName) {
    await withId(dialect, db.schema.createTable('users'))
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('admin', 'integer', (c) => c.notNull())
      .addColumn('failed_logins', 'integer', (c) => c.notNull())
      .addColumn('locked_until', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('console_sessions')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('csrf_token', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('job_roles')
      .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('role', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('job_roles_pk', ['job_id', 'user_id'])
      .execute();
    // Jobs imported before the console were open to participants: they stay so.
    await db.schema.alterTable('jobs').addColumn('status', 'text', (c) => c.notNull().defaultTo('open')).execute();
  },
  async down(db: Kysely<any>) {
    for (const t of ['job_roles', 'console_sessions', 'users']) await db.schema.dropTable(t).ifExists().execute();
    await db.schema.alterTable('jobs').dropColumn('status').execute();
  },
};
