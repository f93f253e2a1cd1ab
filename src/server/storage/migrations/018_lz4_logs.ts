import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../types.js';
import type { SchemaMigration } from './migration.js';

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
