import type { Kysely } from 'kysely';
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
