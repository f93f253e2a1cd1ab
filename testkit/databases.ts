import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import type { DialectName } from '../src/server/storage/types.js';
import { createPgSchema } from './pg-schema.js';

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
 * A fresh, empty database: an SQLite file in a temp folder, or a uniquely named PostgreSQL schema (pg-schema.ts);
 * drop() removes it.
 */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const dir = await mkdtemp(join(tmpdir(), 'glimpse-test-'));
  const removeDir = () => rm(dir, { recursive: true, force: true });
  if (dialect === 'sqlite') return { url: join(dir, 'test.sqlite'), dir, drop: removeDir };
  const schema = await createPgSchema('glimpse_test');
  return {
    url: schema.url,
    dir,
    async drop() {
      await schema.drop();
      await removeDir();
    },
  };
}
