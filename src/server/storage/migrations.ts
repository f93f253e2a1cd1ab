import { Migrator, sql, type Kysely, type Migration, type MigrationResultSet } from 'kysely';
import { m001_initial } from './migrations/001_initial.js';
import { m002_withdrawals } from './migrations/002_withdrawals.js';
import { m003_answer_timing } from './migrations/003_answer_timing.js';
import { m004_job_media } from './migrations/004_job_media.js';
import { m005_quality } from './migrations/005_quality.js';
import { m006_participants } from './migrations/006_participants.js';
import { m007_job_source } from './migrations/007_job_source.js';
import { m008_console } from './migrations/008_console.js';
import { m009_console_hardening } from './migrations/009_console_hardening.js';
import { m010_sign_in_attempts } from './migrations/010_sign_in_attempts.js';
import { m011_verdict_inclusion } from './migrations/011_verdict_inclusion.js';
import { m012_preview_sessions } from './migrations/012_preview_sessions.js';
import { m013_running_sums } from './migrations/013_running_sums.js';
import { m014_model_views } from './migrations/014_model_views.js';
import { m015_session_log_pages } from './migrations/015_session_log_pages.js';
import { m016_mouse_log_pages } from './migrations/016_mouse_log_pages.js';
import { m017_open_session_function } from './migrations/017_open_session_function.js';
import { m018_lz4_logs } from './migrations/018_lz4_logs.js';
import { m019_known_browsers } from './migrations/019_known_browsers.js';
import { m020_visits } from './migrations/020_visits.js';
import { m021_preview_until } from './migrations/021_preview_until.js';
import { m022_stop_for_precision } from './migrations/022_stop_for_precision.js';
import { m023_adaptive_design } from './migrations/023_adaptive_design.js';
import type { SchemaMigration } from './migrations/migration.js';
import type { DialectName } from './types.js';

/**
 * Schema migrations, in code: one file per migration under migrations/, named after it and exporting its named
 * object (migrations/017_open_session_function.ts); a plpgsql function's text is a .sql file beside its migration,
 * read when it runs (migrations/017_open_session_function.sql). Column types are chosen to read back the
 * same on both dialects: integer ids (serial on PostgreSQL), text timestamps and JSON, 0/1 booleans, double
 * precision values. Append new migrations; never edit a released one. (Their multi-line SQL texts keep the
 * indentation they were released with: PostgreSQL stores a function's text as sent.)
 */
const MIGRATIONS: readonly SchemaMigration[] = [
  // 001-007: the first schema (studies, sessions, answers, identities), then withdrawals, answer timing, job media,
  // quality control, participant continuity and the job's source file.
  m001_initial,
  m002_withdrawals,
  m003_answer_timing,
  m004_job_media,
  m005_quality,
  m006_participants,
  m007_job_source,
  // 008-012: the researcher console (accounts, roles, job status) and its hardening, sign-in attempts, the two
  // verdicts per session, and previews.
  m008_console,
  m009_console_hardening,
  m010_sign_in_attempts,
  m011_verdict_inclusion,
  m012_preview_sessions,
  // 013-016: launch day at scale (running sums and playlist loads), 3D camera poses, and large session and mouse
  // logs in pages.
  m013_running_sums,
  m014_model_views,
  m015_session_log_pages,
  m016_mouse_log_pages,
  // 017-021: the arrival's PostgreSQL function, LZ4-compressed logs, known browsers, visits, and the end of a
  // preview session.
  m017_open_session_function,
  m018_lz4_logs,
  m019_known_browsers,
  m020_visits,
  m021_preview_until,
  // 022: stopping for precision (the scores' squares in the running sums, the time a job's rule closed it).
  m022_stop_for_precision,
  // 023: adaptive pair-comparison jobs (the design, per-participant playlists, comparisons handed out).
  m023_adaptive_design,
];

// Kysely applies migrations in the order of their names: the list must say the same, and a name appear once.
for (let i = 1; i < MIGRATIONS.length; i++) {
  if (!(MIGRATIONS[i - 1]!.name < MIGRATIONS[i]!.name)) throw new Error(`migrations out of order: ${MIGRATIONS[i - 1]!.name} before ${MIGRATIONS[i]!.name}`);
}

/** Every migration of a dialect by name (tests run one again over rows written before it). */
export function migrationsOf(dialect: DialectName): Record<string, Migration> {
  return Object.fromEntries(MIGRATIONS.map((m) => [m.name, { up: (db: Kysely<any>) => m.up(db, dialect), down: (db: Kysely<any>) => m.down(db, dialect) }]));
}

/** The names of every migration, in the order they apply. */
export function migrationNames(): string[] {
  return MIGRATIONS.map((m) => m.name);
}

async function migratorOf(db: Kysely<any>, dialect: DialectName): Promise<Migrator> {
  // Kysely looks for its bookkeeping tables in EVERY schema unless told which one: with another schema of the same
  // database holding them (another app, a concurrent test run), it would skip creating ours and then fail.
  const migrationTableSchema =
    dialect === 'postgres' ? ((await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db)).rows[0]?.schema ?? undefined) : undefined;
  return new Migrator({ db, migrationTableSchema, provider: { getMigrations: async () => migrationsOf(dialect) } });
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
