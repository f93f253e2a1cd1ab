/**
 * Migrations 017-021: the arrival's PostgreSQL function, LZ4-compressed logs, known browsers, visits, and the end
 * of a preview session.
 */
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../types.js';
import { withId, type SchemaMigration } from './migration.js';

// An arrival's decision in one round trip on PostgreSQL (issue 26): the job's balancing lock is held for the
// function's own statements, never across round trips to a node whose event loop may answer late (at 2,000
// arrivals on 2 nodes, arrivals queued seconds on it). The twin of sessions.ts openSession's SQLite path and of
// playlist-loads.ts (lock, lease sweep, participant lookup, least-loaded choice, insert, count): change both.
// Each statement of a volatile function reads a fresh snapshot, so the counts read after the lock are current.
export const m017_open_session_function: SchemaMigration = {
  name: '017_open_session_function',
  async up(db: Kysely<any>, dialect: DialectName) {
    if (dialect !== 'postgres') return;
    await sql`
          create function glimpse_open_session(
            p_job_id text, p_cutoff text, p_sweep_before text, p_hashes text[], p_resume_token text, p_preview integer,
            p_accepts_new boolean, p_target_accepted integer, p_playlist_id integer, p_token text, p_platform text,
            p_bcheck_id integer, p_free_task integer, p_created_at text, p_participant_key text, p_worker_id text,
            p_assignment_id text, p_hit_id text, p_turk_submit_to text, p_prolific_pid text, p_study_id text,
            p_prolific_session_id text, p_email text,
            out outcome text, out o_session_id integer, out o_token text, out o_playlist_id integer, out o_load integer
          ) language plpgsql as $body$
          declare
            v_swept text;
            v_completed text;
            v_expired record;
          begin
            select swept_until into v_swept from job_loads where job_id = p_job_id for update;
            if not found then
              outcome := 'uncounted';
              return;
            end if;
            if v_swept = '' or v_swept <= p_sweep_before then
              for v_expired in
                select e.playlist_id, count(*)::integer as n from (
                  select s.playlist_id from sessions s
                  where s.job_id = p_job_id and s.created_at > v_swept and s.created_at <= p_cutoff
                    and s.completed_at is null and s.preview = 0
                  for no key update of s
                ) e group by e.playlist_id order by e.playlist_id
              loop
                update playlist_loads set running = running - v_expired.n where playlist_id = v_expired.playlist_id;
              end loop;
              update job_loads set swept_until = p_cutoff where job_id = p_job_id;
            end if;
            if cardinality(p_hashes) > 0 then
              select s.id, s.token, s.playlist_id, s.completed_at into o_session_id, o_token, o_playlist_id, v_completed
              from session_participants p join sessions s on s.id = p.session_id
              where p.job_id = p_job_id and p.participant_hash = any(p_hashes)
              order by (s.completed_at is null), s.id limit 1;
            end if;
            if o_session_id is null and p_resume_token is not null then
              select s.id, s.token, s.playlist_id, s.completed_at into o_session_id, o_token, o_playlist_id, v_completed
              from sessions s where s.token = p_resume_token and s.job_id = p_job_id and s.preview = p_preview;
            end if;
            if v_completed is not null then
              outcome := 'completed';
              return;
            end if;
            if o_session_id is not null then
              insert into session_participants (job_id, participant_hash, session_id)
              select p_job_id, h, o_session_id from unnest(p_hashes) h on conflict do nothing;
              outcome := 'resumed';
              return;
            end if;
            if not p_accepts_new and p_preview = 0 then
              outcome := 'not_open';
              return;
            end if;
            select l.playlist_id, l.included + l.running into o_playlist_id, o_load from playlist_loads l
            where l.job_id = p_job_id and (p_playlist_id is null or l.playlist_id = p_playlist_id)
            order by l.included + l.running, l.sessions, l.playlist_id limit 1;
            if o_playlist_id is null then
              outcome := 'no_playlist';
              return;
            end if;
            if p_target_accepted is not null and o_load >= p_target_accepted and p_preview = 0 then
              outcome := 'full';
              return;
            end if;
            insert into sessions (job_id, playlist_id, token, platform, bcheck_id, free_task, created_at, completed_at, verification_code, preview)
            values (p_job_id, o_playlist_id, p_token, p_platform, p_bcheck_id, p_free_task, p_created_at, null, null, p_preview)
            returning id into o_session_id;
            o_token := p_token;
            if p_preview = 0 then
              update playlist_loads set sessions = sessions + 1, running = running + 1 where playlist_id = o_playlist_id;
            end if;
            insert into session_identities (session_id, participant_key, worker_id, assignment_id, hit_id, turk_submit_to, prolific_pid, study_id, prolific_session_id, email)
            values (o_session_id, p_participant_key, p_worker_id, p_assignment_id, p_hit_id, p_turk_submit_to, p_prolific_pid, p_study_id, p_prolific_session_id, p_email);
            insert into session_participants (job_id, participant_hash, session_id) select p_job_id, h, o_session_id from unnest(p_hashes) h;
            outcome := 'opened';
          end
          $body$`.execute(db);
  },
  async down(db: Kysely<any>, dialect: DialectName) {
    if (dialect === 'postgres') await sql`drop function if exists glimpse_open_session`.execute(db);
  },
};

// Logs compressed with LZ4 where PostgreSQL has it (14+ built with lz4; otherwise nothing changes): a 256 KiB
// mouse-log page took 17 ms to store with the default pglz and 5 ms with LZ4, at the same size (measured here;
// docs/benchmarks.md "bench:launch"). Rows stored before keep their compression; PostgreSQL reads both.
export const m018_lz4_logs: SchemaMigration = {
  name: '018_lz4_logs',
  async up(db: Kysely<any>, dialect: DialectName) {
    if (dialect !== 'postgres' || !(await hasLz4(db))) return;
    for (const [table, column] of LOG_TEXT_COLUMNS) await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} set compression lz4`.execute(db);
  },
  async down(db: Kysely<any>, dialect: DialectName) {
    if (dialect !== 'postgres' || !(await hasLz4(db))) return;
    for (const [table, column] of LOG_TEXT_COLUMNS) await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} set compression default`.execute(db);
  },
};

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

// Visits (issue 35): a link opened by someone still on the eligibility screen is logged here, not as a
// session, so it holds no playlist slot and no lease (storage/visits.ts).
export const m020_visits: SchemaMigration = {
  name: '020_visits',
  async up(db: Kysely<any>, dialect: DialectName) {
    await withId(dialect, db.schema.createTable('visits'))
      .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
      .addColumn('token', 'text', (c) => c.notNull().unique())
      .addColumn('platform', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text')
      .execute();
    await db.schema.createIndex('visits_job_started').on('visits').columns(['job_id', 'started_at']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('visits').ifExists().execute();
  },
};

// A preview session ends with its link (issue 34): it takes answers until the link it came from expires.
export const m021_preview_until: SchemaMigration = {
  name: '021_preview_until',
  async up(db: Kysely<any>) {
    await db.schema.alterTable('sessions').addColumn('preview_until', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('sessions').dropColumn('preview_until').execute();
  },
};

/** PostgreSQL can compress with LZ4 (14+, built with it). */
async function hasLz4(db: Kysely<any>): Promise<boolean> {
  const { rows } = await sql<{ lz4: boolean }>`select exists (select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any(enumvals)) as lz4`.execute(db);
  return rows[0]?.lz4 === true;
}

/** The columns that hold logs of tens of KB to MBs (018). */
const LOG_TEXT_COLUMNS = [
  ['mouse_log_pages', 'text'],
  ['session_log_pages', 'text'],
  ['screenings', 'mouse_logs'],
  ['session_logs', 'body'],
] as const;
