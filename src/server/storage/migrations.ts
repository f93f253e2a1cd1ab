import { Migrator, sql, type Kysely, type Migration, type MigrationResultSet, type CreateTableBuilder } from 'kysely';
import { summariseLogStates } from '../body/log-summary.mjs';
import { participantHashes } from './participant-ids.js';
import type { DialectName } from './types.js';

/**
 * Schema migrations, in code (no migration folder to ship). Column types are chosen to read back the same on both
 * dialects: integer ids (serial on PostgreSQL), text timestamps and JSON, 0/1 booleans, double precision values.
 * Append new migrations; never edit a released one.
 */
function migrations(dialect: DialectName): Record<string, Migration> {
  const withId = <T extends string>(table: CreateTableBuilder<T, never>) =>
    dialect === 'postgres'
      ? table.addColumn('id', 'serial', (c) => c.primaryKey())
      : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());

  return {
    '001_initial': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('jobs')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('protocol', 'text', (c) => c.notNull())
          .addColumn('fields', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();

        await withId(db.schema.createTable('playlists'))
          .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
          .addColumn('position', 'integer', (c) => c.notNull())
          .addUniqueConstraint('playlists_job_position', ['job_id', 'position'])
          .execute();

        await withId(db.schema.createTable('stimuli'))
          .addColumn('playlist_id', 'integer', (c) => c.notNull().references('playlists.id').onDelete('cascade'))
          .addColumn('is_training', 'integer', (c) => c.notNull())
          .addColumn('position', 'integer', (c) => c.notNull())
          .addColumn('spec', 'text', (c) => c.notNull())
          .addUniqueConstraint('stimuli_playlist_position', ['playlist_id', 'is_training', 'position'])
          .execute();

        await withId(db.schema.createTable('bchecks'))
          .addColumn('b_name', 'text', (c) => c.notNull())
          .addColumn('b_version', 'text', (c) => c.notNull())
          .addColumn('b_os', 'text', (c) => c.notNull())
          .addColumn('screen_size', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();

        await withId(db.schema.createTable('sessions'))
          .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
          .addColumn('playlist_id', 'integer', (c) => c.notNull().references('playlists.id').onDelete('cascade'))
          .addColumn('token', 'text', (c) => c.notNull().unique())
          .addColumn('platform', 'text', (c) => c.notNull())
          .addColumn('bcheck_id', 'integer', (c) => c.references('bchecks.id'))
          .addColumn('free_task', 'integer', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('completed_at', 'text')
          .addColumn('verification_code', 'text')
          .execute();
        await db.schema.createIndex('sessions_playlist').on('sessions').columns(['playlist_id', 'completed_at']).execute();
        await db.schema.createIndex('sessions_job').on('sessions').column('job_id').execute();

        await db.schema
          .createTable('session_identities')
          .addColumn('session_id', 'integer', (c) => c.primaryKey().references('sessions.id').onDelete('cascade'))
          .addColumn('participant_key', 'text')
          .addColumn('worker_id', 'text')
          .addColumn('assignment_id', 'text')
          .addColumn('hit_id', 'text')
          .addColumn('turk_submit_to', 'text')
          .addColumn('prolific_pid', 'text')
          .addColumn('study_id', 'text')
          .addColumn('prolific_session_id', 'text')
          .addColumn('email', 'text')
          .execute();
        await db.schema.createIndex('session_identities_participant').on('session_identities').column('participant_key').execute();

        await withId(db.schema.createTable('ratings'))
          .addColumn('session_id', 'integer', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
          .addColumn('stimulus_id', 'integer', (c) => c.notNull().references('stimuli.id'))
          .addColumn('dedupe_key', 'text', (c) => c.notNull())
          .addColumn('value', 'double precision', (c) => c.notNull())
          .addColumn('nb_replay', 'integer', (c) => c.notNull())
          .addColumn('logs', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addUniqueConstraint('ratings_session_key', ['session_id', 'dedupe_key'])
          .execute();
        await db.schema.createIndex('ratings_stimulus').on('ratings').column('stimulus_id').execute();

        await withId(db.schema.createTable('screenings'))
          .addColumn('session_id', 'integer', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
          .addColumn('stimulus_id', 'integer', (c) => c.notNull().references('stimuli.id'))
          .addColumn('screening_no', 'integer', (c) => c.notNull())
          .addColumn('dedupe_key', 'text', (c) => c.notNull())
          .addColumn('mouse_logs', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addUniqueConstraint('screenings_session_key', ['session_id', 'dedupe_key'])
          .execute();
        await db.schema.createIndex('screenings_stimulus').on('screenings').column('stimulus_id').execute();

        await withId(db.schema.createTable('session_logs'))
          .addColumn('session_id', 'integer', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
          .addColumn('body', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('session_logs_session').on('session_logs').column('session_id').execute();

        await withId(db.schema.createTable('consents'))
          .addColumn('email', 'text', (c) => c.notNull())
          .addColumn('paraphe', 'text', (c) => c.notNull())
          .addColumn('gender', 'text', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('family_name', 'text', (c) => c.notNull())
          .addColumn('birth_country', 'text', (c) => c.notNull())
          .addColumn('birth_day', 'text', (c) => c.notNull())
          .addColumn('signed_on', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
      },
      async down(db: Kysely<any>) {
        for (const t of ['consents', 'session_logs', 'screenings', 'ratings', 'session_identities', 'sessions', 'bchecks', 'stimuli', 'playlists', 'jobs']) {
          await db.schema.dropTable(t).ifExists().execute();
        }
      },
    },
    // What stays of a completed session after `cli withdraw` (storage/withdrawals.ts): enough to refuse a retake.
    '002_withdrawals': {
      async up(db: Kysely<any>) {
        await withId(db.schema.createTable('withdrawals'))
          .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
          .addColumn('participant_hash', 'text')
          .addColumn('code_hash', 'text')
          .addColumn('session_started_at', 'text', (c) => c.notNull())
          .addColumn('withdrawn_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('withdrawals_participant').on('withdrawals').columns(['participant_hash', 'job_id']).execute();
        await db.schema.createIndex('withdrawals_code').on('withdrawals').column('code_hash').execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.dropTable('withdrawals').ifExists().execute();
      },
    },
    // The frame-timing envelope of each answer (contract TimingEnvelope), beside the SPEC's logs text.
    '003_answer_timing': {
      async up(db: Kysely<any>) {
        await db.schema.alterTable('ratings').addColumn('timing', 'text').execute();
        await db.schema.alterTable('screenings').addColumn('timing', 'text').execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.alterTable('ratings').dropColumn('timing').execute();
        await db.schema.alterTable('screenings').dropColumn('timing').execute();
      },
    },
    // The media files of each job as imported: their size (the playlist sends it, so the loading screen knows the
    // total from the first byte) and their attributes for the analysis.
    '004_job_media': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('job_media')
          .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
          .addColumn('path', 'text', (c) => c.notNull())
          .addColumn('bytes', 'bigint', (c) => c.notNull())
          // The study file's mediaAttributes of this file (JSON text), null when it declares none.
          .addColumn('attributes', 'text')
          .addPrimaryKeyConstraint('job_media_pk', ['job_id', 'path'])
          .execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.dropTable('job_media').ifExists().execute();
      },
    },
    // Quality control (docs/quality.md): the study's rules on its job, and the verdict of each session.
    '005_quality': {
      async up(db: Kysely<any>) {
        await db.schema.alterTable('jobs').addColumn('quality', 'text').execute();
        await db.schema
          .createTable('session_verdicts')
          .addColumn('session_id', 'integer', (c) => c.primaryKey().references('sessions.id').onDelete('cascade'))
          .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
          .addColumn('accepted', 'integer', (c) => c.notNull())
          .addColumn('outcomes', 'text', (c) => c.notNull())
          .addColumn('evaluated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('session_verdicts_job').on('session_verdicts').columns(['job_id', 'accepted']).execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.dropTable('session_verdicts').ifExists().execute();
        await db.schema.alterTable('jobs').dropColumn('quality').execute();
      },
    },
    // One session per participant and job (docs/data-safety.md "Participant continuity"): every platform id a session
    // came with, normalised and hashed, unique per job, so concurrent tabs and other spellings find the same session;
    // and the client's Idempotency-Key kept beside the answer, now that dedupe_key is the presentation.
    '006_participants': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('session_participants')
          .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
          .addColumn('participant_hash', 'text', (c) => c.notNull())
          .addColumn('session_id', 'integer', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
          .addPrimaryKeyConstraint('session_participants_pk', ['job_id', 'participant_hash'])
          .execute();
        await db.schema.createIndex('session_participants_session').on('session_participants').column('session_id').execute();
        // Sessions stored before: their ids, oldest session first (a later duplicate keeps its own rows only).
        const identities = await db
          .selectFrom('session_identities as i')
          .innerJoin('sessions as s', 's.id', 'i.session_id')
          .select(['s.job_id', 's.id', 'i.worker_id', 'i.prolific_pid', 'i.email'])
          .orderBy('s.id')
          .execute();
        for (const row of identities) {
          const hashes = participantHashes([row.worker_id, row.prolific_pid, row.email]);
          if (hashes.length === 0) continue;
          await db
            .insertInto('session_participants')
            .values(hashes.map((participant_hash) => ({ job_id: row.job_id, participant_hash, session_id: row.id })))
            .onConflict((oc) => oc.doNothing())
            .execute();
        }
        await db.schema.alterTable('ratings').addColumn('idempotency_key', 'text').execute();
        await db.schema.alterTable('screenings').addColumn('idempotency_key', 'text').execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.dropTable('session_participants').ifExists().execute();
        await db.schema.alterTable('ratings').dropColumn('idempotency_key').execute();
        await db.schema.alterTable('screenings').dropColumn('idempotency_key').execute();
      },
    },
    // The study file a job was imported from: another file with the same id replaces it only with --replace.
    '007_job_source': {
      async up(db: Kysely<any>) {
        await db.schema.alterTable('jobs').addColumn('source', 'text').execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.alterTable('jobs').dropColumn('source').execute();
      },
    },
    // The researcher console (docs/console.md): accounts, signed-in sessions, roles per job, and the job's status.
    '008_console': {
      async up(db: Kysely<any>) {
        await withId(db.schema.createTable('users'))
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
    },
    // Console hardening (issue 21): who may upload new studies, and what the statistics and the screening read of
    // the session logs, kept beside them when they are stored (no log body is parsed again). Older logs are read
    // once here.
    '009_console_hardening': {
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
    },
    // Sign-in attempts counted before their password is checked (storage/sign-in-attempts.ts): per e-mail and address,
    // and per e-mail. Replaces users.failed_logins / locked_until, which no longer decide anything.
    '010_sign_in_attempts': {
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
    },
    // Two verdicts per session (docs/quality.md): `accepted` becomes the payment verdict, `included` the
    // analysis one. Verdicts stored before judged both at once: a failed technical rule (timing, media, fullscreen,
    // visual tests) no longer rejects, and still excludes until `cli screen` judges the session again.
    '011_verdict_inclusion': {
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
    },
    // Previews (docs/console.md): a researcher runs the study as a participant; the session is marked and kept out
    // of balancing, statistics, screening and exports. A preview link's token is kept hashed, for a day.
    '012_preview_sessions': {
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
    },
    // Large session logs in pages (issue 21, item 4: storage/session-logs.ts): a log over 256 KiB is written a page
    // at a time, each page a short statement, and made visible by its session_logs row, which names its pages.
    '015_session_log_pages': {
      async up(db: Kysely<any>) {
        await withId(db.schema.createTable('session_log_pages'))
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
    },
    // Launch day at scale (docs/data-safety.md "Deployment on several nodes"): the running sums a participant's verdict
    // and playlist choice read, kept in the transactions that change them, so neither aggregates the whole job
    // (storage/quality-sums.ts, storage/playlist-loads.ts). Jobs stored before: their score sums are marked stale
    // (the protocol's scores are computed in code: the next verdict rebuilds them) and their playlists counted here.
    '013_running_sums': {
      async up(db: Kysely<any>) {
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
    },
    // 3D objects (docs/3d-objects.md): the camera poses posted with a rating, and the bytes a .gltf loads with its
    // side files (buffers and textures, stored as media rows of their own), so the loading total is exact.
    '014_model_views': {
      async up(db: Kysely<any>) {
        await db.schema.alterTable('ratings').addColumn('views', 'text').execute();
        await db.schema.alterTable('job_media').addColumn('load_bytes', 'bigint').execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.alterTable('ratings').dropColumn('views').execute();
        await db.schema.alterTable('job_media').dropColumn('load_bytes').execute();
      },
    },
    // Large mouse logs in pages (issue 21, item 4: storage/text-pages.ts), as session logs since 015: a mouse log
    // over 256 KiB is written a page at a time and made visible by its screenings row, which names its pages.
    '016_mouse_log_pages': {
      async up(db: Kysely<any>) {
        await withId(db.schema.createTable('mouse_log_pages'))
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
    },
    // An arrival's decision in one round trip on PostgreSQL (issue 26): the job's balancing lock is held for the
    // function's own statements, never across round trips to a node whose event loop may answer late (at 2,000
    // arrivals on 2 nodes, arrivals queued seconds on it). The twin of sessions.ts openSession's SQLite path and of
    // playlist-loads.ts (lock, lease sweep, participant lookup, least-loaded choice, insert, count): change both.
    // Each statement of a volatile function reads a fresh snapshot, so the counts read after the lock are current.
    '017_open_session_function': {
      async up(db: Kysely<any>) {
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
      async down(db: Kysely<any>) {
        if (dialect === 'postgres') await sql`drop function if exists glimpse_open_session`.execute(db);
      },
    },
    // Logs compressed with LZ4 where PostgreSQL has it (14+ built with lz4; otherwise nothing changes): a 256 KiB
    // mouse-log page took 17 ms to store with the default pglz and 5 ms with LZ4, at the same size (measured here;
    // docs/benchmarks.md "bench:launch"). Rows stored before keep their compression; PostgreSQL reads both.
    '018_lz4_logs': {
      async up(db: Kysely<any>) {
        if (dialect !== 'postgres' || !(await hasLz4(db))) return;
        for (const [table, column] of LOG_TEXT_COLUMNS) await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} set compression lz4`.execute(db);
      },
      async down(db: Kysely<any>) {
        if (dialect !== 'postgres' || !(await hasLz4(db))) return;
        for (const [table, column] of LOG_TEXT_COLUMNS) await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} set compression default`.execute(db);
      },
    },
    // Browsers that signed in to an account before (OWASP's device cookies): the sign-in back-off never refuses
    // them for what other addresses sent (storage/sign-in-attempts.ts).
    '019_known_browsers': {
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
    },
    // Visits (issue 35): a link opened by someone still on the eligibility screen is logged here, not as a
    // session, so it holds no playlist slot and no lease (storage/visits.ts).
    '020_visits': {
      async up(db: Kysely<any>) {
        await withId(db.schema.createTable('visits'))
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
    },
    // A preview session ends with its link (issue 34): it takes answers until the link it came from expires.
    '021_preview_until': {
      async up(db: Kysely<any>) {
        await db.schema.alterTable('sessions').addColumn('preview_until', 'text').execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.alterTable('sessions').dropColumn('preview_until').execute();
      },
    },
  };
}

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

/** Every migration of a dialect by name (tests run one again over rows written before it). */
export const migrationsOf = (dialect: DialectName): Record<string, Migration> => migrations(dialect);

/** The names of every migration, in the order they apply. */
export function migrationNames(): string[] {
  return Object.keys(migrations('sqlite')).sort();
}

async function migratorOf(db: Kysely<any>, dialect: DialectName): Promise<Migrator> {
  // Kysely looks for its bookkeeping tables in EVERY schema unless told which one: with another schema of the same
  // database holding them (another app, a concurrent test run), it would skip creating ours and then fail.
  const migrationTableSchema =
    dialect === 'postgres' ? ((await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db)).rows[0]?.schema ?? undefined) : undefined;
  return new Migrator({ db, migrationTableSchema, provider: { getMigrations: async () => migrations(dialect) } });
}

/** Brings the schema up to date; throws with the failing migration's error. */
export async function migrateToLatest(db: Kysely<any>, dialect: DialectName): Promise<void> {
  throwIfFailed(await (await migratorOf(db, dialect)).migrateToLatest());
}

/** Brings the schema up to the named migration (tests of a later migration's data upgrade). */
export async function migrateTo(db: Kysely<any>, dialect: DialectName, name: string): Promise<void> {
  throwIfFailed(await (await migratorOf(db, dialect)).migrateTo(name));
}

function throwIfFailed({ error, results }: MigrationResultSet): void {
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String((error as Error)?.message ?? error)}`);
  }
}
