/**
 * Migrations 013-016: launch day at scale (running sums and playlist loads), 3D camera poses, and large session
 * and mouse logs in pages.
 */
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../types.js';
import { withId, type SchemaMigration } from './migration.js';

// Launch day at scale (docs/data-safety.md "Deployment on several nodes"): the running sums a participant's verdict
// and playlist choice read, kept in the transactions that change them, so neither aggregates the whole job
// (storage/quality-sums.ts, storage/playlist-loads.ts). Jobs stored before: their score sums are marked stale
// (the protocol's scores are computed in code: the next verdict rebuilds them) and their playlists counted here.
export const m013_running_sums: SchemaMigration = {
  name: '013_running_sums',
  async up(db: Kysely<any>, dialect: DialectName) {
    const real = dialect === 'postgres' ? 'double precision' : 'real';
    await db.schema
      .createTable('accepted_sessions')
      .addColumn('job_id', 'text', (c) => c.primaryKey().references('jobs.id').onDelete('cascade'))
      .addColumn('sessions', 'integer', (c) => c.notNull())
      // 1: the sums must be rebuilt before they are read (a withdrawal deleted sessions they counted).
      .addColumn('stale', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable('accepted_score_sums')
      .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
      .addColumn('stimulus', 'text', (c) => c.notNull())
      .addColumn('score_sum', real, (c) => c.notNull())
      .addColumn('ratings', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('accepted_score_sums_pk', ['job_id', 'stimulus'])
      .execute();
    await db.schema
      .createTable('job_loads')
      .addColumn('job_id', 'text', (c) => c.primaryKey().references('jobs.id').onDelete('cascade'))
      .addColumn('swept_until', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('playlist_loads')
      .addColumn('playlist_id', 'integer', (c) => c.primaryKey().references('playlists.id').onDelete('cascade'))
      .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
      .addColumn('sessions', 'integer', (c) => c.notNull())
      .addColumn('included', 'integer', (c) => c.notNull())
      .addColumn('running', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('playlist_loads_job').on('playlist_loads').column('job_id').execute();
    // The lease sweep reads only the sessions that crossed the lease since the last arrival.
    await db.schema.createIndex('sessions_job_created').on('sessions').columns(['job_id', 'created_at']).execute();
    await sql`insert into accepted_sessions (job_id, sessions, stale) select id, 0, 1 from jobs`.execute(db);
    // Every uncompleted session counts as running until the job's first arrival sweeps the lease.
    await sql`insert into job_loads (job_id, swept_until) select id, '' from jobs`.execute(db);
    await sql`
          insert into playlist_loads (playlist_id, job_id, sessions, included, running)
          select p.id, p.job_id, count(s.id),
            coalesce(sum(case when s.completed_at is not null and coalesce(v.included, 1) = 1 then 1 else 0 end), 0),
            coalesce(sum(case when s.completed_at is null then 1 else 0 end), 0)
          from playlists p
          left join sessions s on s.playlist_id = p.id and s.preview = 0
          left join session_verdicts v on v.session_id = s.id
          group by p.id, p.job_id`.execute(db);
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('sessions_job_created').ifExists().execute();
    for (const table of ['playlist_loads', 'job_loads', 'accepted_score_sums', 'accepted_sessions']) await db.schema.dropTable(table).ifExists().execute();
  },
};

// 3D objects (docs/3d-objects.md): the camera poses posted with a rating, and the bytes a .gltf loads with its
// side files (buffers and textures, stored as media rows of their own), so the loading total is exact.
export const m014_model_views: SchemaMigration = {
  name: '014_model_views',
  async up(db: Kysely<any>) {
    await db.schema.alterTable('ratings').addColumn('views', 'text').execute();
    await db.schema.alterTable('job_media').addColumn('load_bytes', 'bigint').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('ratings').dropColumn('views').execute();
    await db.schema.alterTable('job_media').dropColumn('load_bytes').execute();
  },
};

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
