import type { Kysely } from 'kysely';
import type { DialectName } from '../types.js';
import { withId, type SchemaMigration } from './migration.js';

// Large session logs in pages (issue 21, item 4: storage/session-logs.ts): a log over 256 KiB is written a page
// at a time, each page a short statement, and made visible by its session_logs row, which names its pages.
export const m015_session_log_pages: SchemaMigration = {
  name: '015_session_log_pages',
  async up(db: Kysely<any>, dialect: DialectName) {
    await withId(dialect, db.schema.createTable('session_log_pages'))
      .addColumn('session_id', 'integer', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
      .addColumn('log_key', 'text', (c) => c.notNull())
      .addColumn('page_no', 'integer', (c) => c.notNull())
      .addColumn('text', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('session_log_pages_key', ['log_key', 'page_no'])
      .execute();
    await db.schema.createIndex('session_log_pages_session').on('session_log_pages').column('session_id').execute();
    await db.schema.alterTable('session_logs').addColumn('log_key', 'text').execute();
    await db.schema.alterTable('session_logs').addColumn('bytes', 'integer').execute();
    await db.schema.createIndex('session_logs_log_key').on('session_logs').column('log_key').execute();
  },
  async down(db: Kysely<any>) {
    // Paged logs get their whole body back first: a downgrade loses no log.
    const paged: Array<{ id: number; log_key: string }> = await db.selectFrom('session_logs').select(['id', 'log_key']).where('log_key', 'is not', null).execute();
    for (const log of paged) {
      const pages: Array<{ text: string }> = await db.selectFrom('session_log_pages').select('text').where('log_key', '=', log.log_key).orderBy('page_no').execute();
      await db.updateTable('session_logs').set({ body: pages.map((p) => p.text).join('') }).where('id', '=', log.id).execute();
    }
    await db.schema.dropIndex('session_logs_log_key').execute();
    await db.schema.alterTable('session_logs').dropColumn('bytes').execute();
    await db.schema.alterTable('session_logs').dropColumn('log_key').execute();
    await db.schema.dropTable('session_log_pages').ifExists().execute();
  },
};
