import type { Kysely } from 'kysely';
import type { SchemaMigration } from './migration.js';

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
