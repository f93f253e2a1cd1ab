import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The local test PostgreSQL (trust auth). Override with GLIMPSE_TEST_PG_URL. */
export const PG_URL = process.env.GLIMPSE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A uniquely named, empty PostgreSQL schema and a DATABASE_URL that selects it through search_path, so
 * concurrent runs (tests, benchmarks) never collide. drop() removes it with everything in it.
 * Shared by the server tests and bench/api.
 */
export async function createPgSchema(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `${prefix}_${process.pid}_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create schema ${schema}`);
  const separator = PG_URL.includes('?') ? '&' : '?';
  return {
    url: `${PG_URL}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    drop: () => adminQuery(`drop schema if exists ${schema} cascade`),
  };
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`PostgreSQL is required at ${PG_URL} (set GLIMPSE_SKIP_PG=1 to skip it): ${(error as Error).message}`);
  }
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
