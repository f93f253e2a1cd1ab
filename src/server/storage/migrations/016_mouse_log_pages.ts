import type { Kysely } from 'kysely';
import type { DialectName } from '../types.js';
import { withId, type SchemaMigration } from './migration.js';

// Large mouse logs in pages (issue 21, item 4: storage/text-pages.ts), as session logs since 015: a mouse log
// over 256 KiB is written a page at a time and made visible by its screenings row, which names its pages.
export const m016_mouse_log_pages: SchemaMigration = {
  name: '016_mouse_log_pages',
  async up(db: Kysely<any>, dialect: DialectName) {
    await withId(dialect, db.schema.createTable('mouse_log_pages'))
      .addColumn('session_id', 'integer', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
      .addColumn('log_key', 'text', (c) => c.notNull())
      .addColumn('page_no', 'integer', (c) => c.notNull())
      .addColumn('text', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('mouse_log_pages_key', ['log_key', 'page_no'])
      .execute();
    await db.schema.createIndex('mouse_log_pages_session').on('mouse_log_pages').column('session_id').execute();
    await db.schema.alterTable('screenings').addColumn('log_key', 'text').execute();
    await db.schema.alterTable('screenings').addColumn('bytes', 'integer').execute();
    await db.schema.createIndex('screenings_log_key').on('screenings').column('log_key').execute();
  },
  async down(db: Kysely<any>) {
    // Paged mouse logs get their whole text back first: a downgrade loses no sample.
    const paged: Array<{ id: number; log_key: string }> = await db.selectFrom('screenings').select(['id', 'log_key']).where('log_key', 'is not', null).execute();
    for (const log of paged) {
      const pages: Array<{ text: string }> = await db.selectFrom('mouse_log_pages').select('text').where('log_key', '=', log.log_key).orderBy('page_no').execute();
      await db.updateTable('screenings').set({ mouse_logs: pages.map((p) => p.text).join('') }).where('id', '=', log.id).execute();
    }
    await db.schema.dropIndex('screenings_log_key').execute();
    await db.schema.alterTable('screenings').dropColumn('bytes').execute();
    await db.schema.alterTable('screenings').dropColumn('log_key').execute();
    await db.schema.dropTable('mouse_log_pages').ifExists().execute();
  },
};
