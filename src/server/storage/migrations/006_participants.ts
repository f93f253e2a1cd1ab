import type { Kysely } from 'kysely';
import { participantHashes } from '../participant-ids.js';
import type { SchemaMigration } from './migration.js';

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
