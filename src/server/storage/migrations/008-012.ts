/**
 * Migrations 008-012: the researcher console (accounts, roles, job status) and its hardening, sign-in attempts,
 * the two verdicts per session, and previews.
 */
import type { Kysely } from 'kysely';
import { summariseLogStates } from '../../body/log-summary.mjs';
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

// Console hardening (issue 21): who may upload new studies, and what the statistics and the screening read of
// the session logs, kept beside them when they are stored (no log body is parsed again). Older logs are read
// once here.
export const m009_console_hardening: SchemaMigration = {
  name: '009_console_hardening',
  async up(db: Kysely<any>) {
    await db.schema.alterTable('users').addColumn('creates_studies', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('session_logs').addColumn('state_classes', 'text').execute();
    await db.schema.alterTable('sessions').addColumn('log_phase', 'text').execute();
    const lastOf = new Map<number, string>();
    for (let after = 0; ; ) {
      const rows: Array<{ id: number; session_id: number; body: string }> = await db.selectFrom('session_logs').select(['id', 'session_id', 'body']).where('id', '>', after).orderBy('id').limit(200).execute();
      if (rows.length === 0) break;
      for (const row of rows) {
        const summary = summariseLogStates((JSON.parse(row.body) as { logStates?: Array<{ state: string; status: string }> }).logStates);
        await db.updateTable('session_logs').set({ state_classes: summary.classes }).where('id', '=', row.id).execute();
        // As when a log is stored: a post without states keeps the phase reached before.
        if (summary.last) lastOf.set(row.session_id, JSON.stringify(summary.last));
      }
      after = rows.at(-1)!.id;
    }
    for (const [sessionId, phase] of lastOf) await db.updateTable('sessions').set({ log_phase: phase }).where('id', '=', sessionId).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('users').dropColumn('creates_studies').execute();
    await db.schema.alterTable('session_logs').dropColumn('state_classes').execute();
    await db.schema.alterTable('sessions').dropColumn('log_phase').execute();
  },
};

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

// Two verdicts per session (docs/quality.md): `accepted` becomes the payment verdict, `included` the
// analysis one. Verdicts stored before judged both at once: a failed technical rule (timing, media, fullscreen,
// visual tests) no longer rejects, and still excludes until `cli screen` judges the session again.
export const m011_verdict_inclusion: SchemaMigration = {
  name: '011_verdict_inclusion',
  async up(db: Kysely<any>) {
    await db.schema.alterTable('session_verdicts').addColumn('included', 'integer', (c) => c.notNull().defaultTo(1)).execute();
    // The payment rules as this migration knows them (frozen: later rules do not change stored history).
    const paymentRules = new Set(['gold', 'traps', 'attention', 'minVariance', 'minCorrelation', 'minTrialMs']);
    const rows = await db.selectFrom('session_verdicts').select(['session_id', 'outcomes']).execute();
    for (const row of rows as Array<{ session_id: number; outcomes: string }>) {
      const failed = (JSON.parse(row.outcomes) as Array<{ rule: string; status: string }>).filter((o) => o.status === 'failed');
      const accepted = failed.some((o) => paymentRules.has(o.rule)) ? 0 : 1;
      await db.updateTable('session_verdicts').set({ accepted, included: failed.length === 0 ? 1 : 0 }).where('session_id', '=', row.session_id).execute();
    }
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('session_verdicts').dropColumn('included').execute();
  },
};

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
