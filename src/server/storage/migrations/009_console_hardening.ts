import type { Kysely } from 'kysely';
import { summariseLogStates } from '../../body/log-summary.mjs';
import type { SchemaMigration } from './migration.js';

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
