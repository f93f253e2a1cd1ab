import { readFileSync } from 'node:fs';
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../types.js';
import type { SchemaMigration } from './migration.js';

// An arrival's decision in one round trip on PostgreSQL (issue 26): the job's balancing lock is held for the
// function's own statements, never across round trips to a node whose event loop may answer late (at 2,000
// arrivals on 2 nodes, arrivals queued seconds on it). The twin of sessions.ts openSession's SQLite path and of
// playlist-loads.ts (lock, lease sweep, participant lookup, least-loaded choice, insert, count): change both.
// Each statement of a volatile function reads a fresh snapshot, so the counts read after the lock are current.
export const m017_open_session_function: SchemaMigration = {
  name: '017_open_session_function',
  async up(db: Kysely<any>, dialect: DialectName) {
    if (dialect !== 'postgres') return;
    // The statement as released, byte for byte (PostgreSQL stores the function's text as sent): the .sql file
    // starts with an empty line and ends without a newline after `$body$`.
    await sql.raw(readFileSync(new URL('./017_open_session_function.sql', import.meta.url), 'utf8')).execute(db);
  },
  async down(db: Kysely<any>, dialect: DialectName) {
    if (dialect === 'postgres') await sql`drop function if exists glimpse_open_session`.execute(db);
  },
};
