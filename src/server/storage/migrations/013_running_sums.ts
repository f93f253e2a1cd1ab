import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../types.js';
import type { SchemaMigration } from './migration.js';

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
