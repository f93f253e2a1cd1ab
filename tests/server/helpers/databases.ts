import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe } from 'vitest';
import type { DialectName } from '../../../src/server/storage/types.js';

/** The local test PostgreSQL (trust auth). Override with GLIMPSE_TEST_PG_URL. */
export const PG_URL = process.env.GLIMPSE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SKIP_PG = process.env.GLIMPSE_SKIP_PG === '1';

/**
 * The dialects every server suite runs on. PostgreSQL is skipped ONLY when GLIMPSE_SKIP_PG=1 (and says so
 * loudly); otherwise a missing PostgreSQL makes the suites fail.
 */
export const DIALECTS: DialectName[] = SKIP_PG ? ['sqlite'] : ['sqlite', 'postgres'];

export function describeEachDialect(name: string, body: (dialect: DialectName) => void): void {
  for (const dialect of DIALECTS) describe(`${name} [${dialect}]`, () => body(dialect));
  if (SKIP_PG) {
    console.warn(`\n!!! GLIMPSE_SKIP_PG=1: "${name}" is NOT tested on PostgreSQL !!!\n`);
    describe.skip(`${name} [postgres] SKIPPED (GLIMPSE_SKIP_PG=1)`, () => undefined);
  }
}

export interface TestDatabase {
  url: string;
  /** A folder for this database's files (SQLite file, media store). */
  dir: string;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database: an SQLite file in a temp folder, or a uniquely named PostgreSQL schema reached
 * through search_path (so concurrent runs never collide); drop() removes it.
 */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const dir = await mkdtemp(join(tmpdir(), 'glimpse-test-'));
  if (dialect === 'sqlite') {
    return { url: join(dir, 'test.sqlite'), dir, drop: () => rm(dir, { recursive: true, force: true }) };
  }
  const schema = `glimpse_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create schema ${schema}`);
  const separator = PG_URL.includes('?') ? '&' : '?';
  return {
    url: `${PG_URL}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    dir,
    async drop() {
      await adminQuery(`drop schema if exists ${schema} cascade`);
      await rm(dir, { recursive: true, force: true });
    },
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
