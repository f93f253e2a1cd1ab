import { join } from 'node:path';
import type { DialectName } from '../../src/server/storage/types.js';
import { createPgSchema } from '../../testkit/pg-schema.js';

/** A bench's throwaway database, and what removes it (the bench's folder, SQLite's file with it, is removed by the bench). */
export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * The database a bench runs on: an SQLite file `name`.sqlite in the bench's folder, or a fresh schema
 * `glimpse_bench_<name>` of the local PostgreSQL test database (testkit/pg-schema.ts).
 */
export async function benchDatabase(dialect: DialectName, dir: string, name: string): Promise<BenchDatabase> {
  if (dialect === 'sqlite') return { url: join(dir, `${name}.sqlite`), drop: async () => undefined };
  const schema = await createPgSchema(`glimpse_bench_${name}`);
  return { url: schema.url, drop: () => schema.drop() };
}
