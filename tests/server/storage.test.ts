import { existsSync, statSync } from 'node:fs';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { openStorage } from '../../src/server/storage/open.js';
import { nowIso } from '../../src/server/storage/types.js';
import { createTestDatabase } from '../../testkit/databases.js';

it('SQLite: group-committed writes all land, and closing checkpoints the WAL into the database file', async () => {
  const database = await createTestDatabase('sqlite');
  try {
    const storage = await openStorage({ databaseUrl: database.url });
    // Checkpoints are the worker thread's job, not the committing connection's.
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(storage.db);
    expect(rows[0].wal_autocheckpoint).toBe(0);
    const writes = Array.from({ length: 3000 }, (_, i) =>
      storage.write((trx) =>
        trx.insertInto('bchecks').values({ b_name: `browser ${i}`, b_version: '1', b_os: 'Linux', screen_size: '1x1', created_at: nowIso() }).execute(),
      ),
    );
    await Promise.all(writes);
    await storage.close();
    const wal = `${database.url}-wal`;
    expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);

    const reopened = await openStorage({ databaseUrl: database.url });
    const count = await reopened.db.selectFrom('bchecks').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(3000);
    await reopened.close();
  } finally {
    await database.drop();
  }
});

it('SQLite: one failing write of a batch does not undo the others', async () => {
  const database = await createTestDatabase('sqlite');
  const storage = await openStorage({ databaseUrl: database.url });
  try {
    const insert = (name: string) => (trx: Parameters<Parameters<typeof storage.write>[0]>[0]) =>
      trx.insertInto('bchecks').values({ b_name: name, b_version: '1', b_os: 'Linux', screen_size: '1x1', created_at: nowIso() }).execute();
    const outcomes = await Promise.allSettled([
      storage.write(insert('first')),
      storage.write(async (trx) => {
        await insert('half-done')(trx);
        throw new Error('this write fails after its first statement');
      }),
      storage.write(insert('third')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const names = await storage.db.selectFrom('bchecks').select('b_name').orderBy('id').execute();
    expect(names.map((r) => r.b_name)).toEqual(['first', 'third']);
  } finally {
    await storage.close();
    await database.drop();
  }
});
