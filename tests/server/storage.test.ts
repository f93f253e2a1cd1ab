import { existsSync, statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/server/storage/group-commit.js';
import { openStorage } from '../../src/server/storage/open.js';
import { nowIso, type Database, type Db } from '../../src/server/storage/types.js';
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

/**
 * A full disk in the middle of a batch (issue 34): SQLite answers SQLITE_FULL and rolls the WHOLE transaction back
 * (max_page_count makes it full on demand, as a full disk met while the page cache spills does). The writes after
 * it must not run in autocommit: none is stored, all fail with SQLITE_FULL (503 for the client), and once there is
 * room again the next batch is stored. Both ways of asking whether the transaction is still open are tried: by a
 * statement (as openStorage runs today) and by better-sqlite3's flag.
 */
describe('SQLite: a full disk inside a group commit', () => {
  const write = (text: string) => (trx: Db) => sql`insert into filler (v) values (${text})`.execute(trx);

  async function fullInTheMiddle(db: Db, submit: (work: (trx: Db) => Promise<unknown>, singleStatement: boolean) => Promise<unknown>) {
    await sql`create table filler (v text not null)`.execute(db);
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(db);
    await sql.raw(`pragma max_page_count = ${rows[0]!.page_count + 4}`).execute(db);
    const outcomes = await Promise.allSettled([
      submit(write('before'), true),
      submit(write('x'.repeat(200_000)), true),
      submit(write('after'), true),
      submit(async (trx) => {
        await write('after, with its savepoint')(trx);
        await write('and a second statement')(trx);
      }, false),
    ]);
    expect((await sql<{ v: string }>`select v from filler`.execute(db)).rows).toEqual([]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as { code?: string }).code : 'stored'))).toEqual(['SQLITE_FULL', 'SQLITE_FULL', 'SQLITE_FULL', 'SQLITE_FULL']);

    await sql.raw('pragma max_page_count = 1073741823').execute(db);
    await Promise.all([submit(write('room again'), true), submit(write('room again, savepoint'), false)]);
    expect((await sql<{ v: string }>`select v from filler order by rowid`.execute(db)).rows.map((r) => r.v)).toEqual(['room again', 'room again, savepoint']);
  }

  it('asked by a statement (openStorage)', async () => {
    const database = await createTestDatabase('sqlite');
    const storage = await openStorage({ databaseUrl: database.url });
    try {
      await fullInTheMiddle(storage.db, (work, singleStatement) => storage.write(work, { singleStatement }));
    } finally {
      await storage.close();
      await database.drop();
    }
  });

  it("asked through better-sqlite3's inTransaction", async () => {
    const database = await createTestDatabase('sqlite');
    const raw = new BetterSqlite3(database.url);
    raw.pragma('journal_mode = WAL');
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
    const commits = new GroupCommit(db, null, { inTransaction: () => raw.inTransaction });
    try {
      await fullInTheMiddle(db, (work, singleStatement) => commits.submit(work, singleStatement));
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
