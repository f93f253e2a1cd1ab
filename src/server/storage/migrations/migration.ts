import type { CreateTableBuilder, Kysely } from 'kysely';
import type { DialectName } from '../types.js';

/**
 * One schema migration (../migrations.ts runs them): `name` is what Kysely records in kysely_migration once it has
 * run, so a released migration keeps its name and its statements forever. `dialect` is passed for the few steps
 * that differ between SQLite and PostgreSQL.
 */
export interface SchemaMigration {
  readonly name: string;
  up(db: Kysely<any>, dialect: DialectName): Promise<void>;
  down(db: Kysely<any>, dialect: DialectName): Promise<void>;
}

/** A table's integer primary key `id`: serial on PostgreSQL, an autoincrement integer on SQLite. */
export const withId = <T extends string>(dialect: DialectName, table: CreateTableBuilder<T, never>) =>
  dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
