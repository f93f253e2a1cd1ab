/**
 * Migrations 001-007: the first schema (studies, sessions, answers, identities), then withdrawals, answer timing,
 * job media, quality control, participant continuity and the job's source file.
 */
import type { Kysely } from 'kysely';
import { participantHashes } from '../participant-ids.js';
import type { DialectName } from '../types.js';
import { withId, type SchemaMigration } from './migration.js';

// The schema as first released: jobs, their playlists and stimuli, browser checks, sessions and their platform
// identities, ratings, screenings, session logs and consent forms.
export const m001_initial: SchemaMigration = {
  name: '001_initial',
  async up(db: Kysely<any>, dialect: DialectName) {
    await db.schema
      .createTable('jobs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('protocol', 'text', (c) => c.notNull())
      .addColumn('fields', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await withId(dialect, db.schema.createTable('playlists'))
      .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addUniqueConstraint('playlists_job_position', ['job_id', 'position'])
      .execute();

    await withId(dialect, db.schema.createTable('stimuli'))
      .addColumn('playlist_id', 'integer', (c) => c.notNull().references('playlists.id').onDelete('cascade'))
      .addColumn('is_training', 'integer', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('spec', 'text', (c) => c.notNull())
      .addUniqueConstraint('stimuli_playlist_position', ['playlist_id', 'is_training', 'position'])
      .execute();

    await withId(dialect, db.schema.createTable('bchecks'))
      .addColumn('b_name', 'text', (c) => c.notNull())
      .addColumn('b_version', 'text', (c) => c.notNull())
      .addColumn('b_os', 'text', (c) => c.notNull())
      .addColumn('screen_size', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();

    await withId(dialect, db.schema.createTable('sessions'))
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

    await withId(dialect, db.schema.createTable('ratings'))
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

    await withId(dialect, db.schema.createTable('screenings'))
      .addColumn('session_id', 'integer', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
      .addColumn('stimulus_id', 'integer', (c) => c.notNull().references('stimuli.id'))
      .addColumn('screening_no', 'integer', (c) => c.notNull())
      .addColumn('dedupe_key', 'text', (c) => c.notNull())
      .addColumn('mouse_logs', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('screenings_session_key', ['session_id', 'dedupe_key'])
      .execute();
    await db.schema.createIndex('screenings_stimulus').on('screenings').column('stimulus_id').execute();

    await withId(dialect, db.schema.createTable('session_logs'))
      .addColumn('session_id', 'integer', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('session_logs_session').on('session_logs').column('session_id').execute();

    await withId(dialect, db.schema.createTable('consents'))
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
};

// What stays of a completed session after `cli withdraw` (storage/withdrawals.ts): enough to refuse a retake.
export const m002_withdrawals: SchemaMigration = {
  name: '002_withdrawals',
  async up(db: Kysely<any>, dialect: DialectName) {
    await withId(dialect, db.schema.createTable('withdrawals'))
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
};

// The frame-timing envelope of each answer (contract TimingEnvelope), beside the SPEC's logs text.
export const m003_answer_timing: SchemaMigration = {
  name: '003_answer_timing',
  async up(db: Kysely<any>) {
    await db.schema.alterTable('ratings').addColumn('timing', 'text').execute();
    await db.schema.alterTable('screenings').addColumn('timing', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('ratings').dropColumn('timing').execute();
    await db.schema.alterTable('screenings').dropColumn('timing').execute();
  },
};

// The media files of each job as imported: their size (the playlist sends it, so the loading screen knows the
// total from the first byte) and their attributes for the analysis.
export const m004_job_media: SchemaMigration = {
  name: '004_job_media',
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
};

// Quality control (docs/quality.md): the study's rules on its job, and the verdict of each session.
export const m005_quality: SchemaMigration = {
  name: '005_quality',
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
};

// One session per participant and job (docs/data-safety.md "Participant continuity"): every platform id a session
// came with, normalised and hashed, unique per job, so concurrent tabs and other spellings find the same session;
// and the client's Idempotency-Key kept beside the answer, now that dedupe_key is the presentation.
export const m006_participants: SchemaMigration = {
  name: '006_participants',
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
};

// The study file a job was imported from: another file with the same id replaces it only with --replace.
export const m007_job_source: SchemaMigration = {
  name: '007_job_source',
  async up(db: Kysely<any>) {
    await db.schema.alterTable('jobs').addColumn('source', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('jobs').dropColumn('source').execute();
  },
};
