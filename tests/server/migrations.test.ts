import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { migrationNames } from '../../src/server/storage/migrations.js';
import { openStorage } from '../../src/server/storage/open.js';
import { DIALECTS } from '../../testkit/databases.js';
import { createPgSchema } from '../../testkit/pg-schema.js';

const tablesOf = async (storage: Awaited<ReturnType<typeof openStorage>>) =>
  (await sql<{ t: string }>`select table_name as t from information_schema.tables where table_schema = current_schema() order by 1`.execute(storage.db)).rows.map((r) => r.t);

it.skipIf(!DIALECTS.includes('postgres'))('PostgreSQL: migrates a schema while another schema of the database already has its own migration tables', async () => {
  const first = await createPgSchema('glimpse_migrate');
  const second = await createPgSchema('glimpse_migrate');
  try {
    const a = await openStorage({ databaseUrl: first.url });
    await a.close();
    const b = await openStorage({ databaseUrl: second.url });
    expect(await tablesOf(b)).toEqual(expect.arrayContaining(['jobs', 'sessions', 'withdrawals', 'kysely_migration', 'kysely_migration_lock']));
    const applied = await b.db.selectFrom('kysely_migration' as any).select('name').orderBy('name').execute();
    expect(applied.map((r: any) => r.name)).toEqual(migrationNames());
    expect(migrationNames().slice(0, 3)).toEqual(['001_initial', '002_withdrawals', '003_answer_timing']);
    await b.close();
    // Opening again finds its own bookkeeping and applies nothing twice.
    const again = await openStorage({ databaseUrl: second.url });
    await again.close();
  } finally {
    await first.drop();
    await second.drop();
  }
});
