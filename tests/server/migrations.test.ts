import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { migrateTo, migrateToLatest, migrationNames } from '../../src/server/storage/migrations.js';
import { openStorage } from '../../src/server/storage/open.js';
import { insertCompletedSessions } from '../../testkit/bulk-rows.js';
import { createTestDatabase, DIALECTS } from '../../testkit/databases.js';
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

it.each(DIALECTS)('%s: verdicts stored before the two verdicts split: a technical failure is approved and stays excluded, a payment failure stays rejected', async (dialect) => {
  const database = await createTestDatabase(dialect);
  const storage = await openStorage({ databaseUrl: database.url, migrate: false });
  try {
    await migrateTo(storage.db, dialect, '008_console');
    const at = '2026-01-01T00:00:00.000Z';
    await storage.db.insertInto('jobs').values({ id: 'old', protocol: 'absolute_category_rating', fields: '{}', created_at: at, updated_at: at } as never).execute();
    await storage.db.insertInto('playlists').values({ job_id: 'old', position: 0 } as never).execute();
    const sessions = await insertCompletedSessions(storage, 'old', 3, at);
    const outcomes = (failed: string[]) => JSON.stringify(['gold', 'maxMistimedShare', 'minVariance'].map((rule) => ({ rule, status: failed.includes(rule) ? 'failed' : 'passed', detail: '' })));
    const old = [
      { failed: [], accepted: 1 },
      { failed: ['maxMistimedShare'], accepted: 0 },
      { failed: ['maxMistimedShare', 'minVariance'], accepted: 0 },
    ];
    await storage.db
      .insertInto('session_verdicts')
      .values(old.map((v, i) => ({ session_id: sessions[i]!.id, job_id: 'old', accepted: v.accepted, outcomes: outcomes(v.failed), evaluated_at: at })) as never)
      .execute();
    await migrateToLatest(storage.db, dialect);
    const rows = await storage.db.selectFrom('session_verdicts').select(['session_id', 'accepted', 'included']).orderBy('session_id').execute();
    expect(rows.map((r) => [r.accepted, r.included])).toEqual([
      [1, 1],
      [1, 0],
      [0, 0],
    ]);
    // Migration 013 counts the playlists of jobs stored before (one included session of three) and marks their
    // score sums for a rebuild on the next verdict.
    expect(await storage.db.selectFrom('playlist_loads').select(['job_id', 'sessions', 'included', 'running']).execute()).toEqual([{ job_id: 'old', sessions: 3, included: 1, running: 0 }]);
    expect(await storage.db.selectFrom('accepted_sessions').select(['job_id', 'stale']).execute()).toEqual([{ job_id: 'old', stale: 1 }]);
  } finally {
    await storage.close();
    await database.drop();
  }
});

it.skipIf(!DIALECTS.includes('postgres'))('PostgreSQL: logs are compressed with LZ4 from 018 (this server has it), and a log stored before reads back whole', async () => {
  const schema = await createPgSchema('glimpse_lz4');
  const storage = await openStorage({ databaseUrl: schema.url, migrate: false });
  const compression = async () =>
    (
      await sql<{ col: string; c: string }>`select c.relname || '.' || a.attname as col, a.attcompression as c from pg_attribute a join pg_class c on c.oid = a.attrelid
        where c.relnamespace = current_schema()::regnamespace and (c.relname, a.attname) in (('mouse_log_pages', 'text'), ('session_log_pages', 'text'), ('screenings', 'mouse_logs'), ('session_logs', 'body')) order by 1`.execute(storage.db)
    ).rows;
  try {
    await migrateTo(storage.db, 'postgres', '017_open_session_function');
    const at = '2026-01-01T00:00:00.000Z';
    await storage.db.insertInto('jobs').values({ id: 'j', protocol: 'absolute_category_rating', fields: '{}', created_at: at, updated_at: at, status: 'open' } as never).execute();
    const { id: playlist } = await storage.db.insertInto('playlists').values({ job_id: 'j', position: 0 }).returning('id').executeTakeFirstOrThrow();
    const { id: session } = await storage.db.insertInto('sessions').values({ job_id: 'j', playlist_id: playlist, token: 't', platform: 'prolific', bcheck_id: null, free_task: 0, created_at: at, completed_at: null, verification_code: null } as never).returning('id').executeTakeFirstOrThrow();
    // Large and compressible: TOAST compresses it (with pglz before 018).
    const before = JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ posX: i % 640, posY: i % 480, time: i })));
    await storage.db.insertInto('session_logs').values({ session_id: session, body: before, created_at: at } as never).execute();
    expect((await compression()).map((r) => r.c)).toEqual(['', '', '', '']);
    await migrateToLatest(storage.db, 'postgres');
    expect(await compression()).toEqual([
      { col: 'mouse_log_pages.text', c: 'l' },
      { col: 'screenings.mouse_logs', c: 'l' },
      { col: 'session_log_pages.text', c: 'l' },
      { col: 'session_logs.body', c: 'l' },
    ]);
    await storage.db.insertInto('session_logs').values({ session_id: session, body: `${before} `, created_at: at } as never).execute();
    const methods = await sql<{ m: string | null; body: string }>`select pg_column_compression(body) as m, body from session_logs order by id`.execute(storage.db);
    expect(methods.rows.map((r) => r.m)).toEqual(['pglz', 'lz4']);
    expect(methods.rows.map((r) => r.body)).toEqual([before, `${before} `]);
  } finally {
    await storage.close();
    await schema.drop();
  }
});

it.each(DIALECTS)('%s: running sums stored before migration 022 lack their squares, so they are marked for a rebuild; a job has not reached its precision rule', async (dialect) => {
  const database = await createTestDatabase(dialect);
  const storage = await openStorage({ databaseUrl: database.url, migrate: false });
  try {
    await migrateTo(storage.db, dialect, '021_preview_until');
    const at = '2026-01-01T00:00:00.000Z';
    await storage.db.insertInto('jobs').values({ id: 'old', protocol: 'absolute_category_rating', fields: '{}', created_at: at, updated_at: at } as never).execute();
    await storage.db.insertInto('accepted_sessions').values({ job_id: 'old', sessions: 2, stale: 0 } as never).execute();
    await storage.db.insertInto('accepted_score_sums').values({ job_id: 'old', stimulus: 'a.png', score_sum: 9, ratings: 2 } as never).execute();
    await migrateToLatest(storage.db, dialect);
    expect(await storage.db.selectFrom('accepted_sessions').select(['sessions', 'stale']).executeTakeFirstOrThrow()).toEqual({ sessions: 2, stale: 1 });
    const sums = await storage.db.selectFrom('accepted_score_sums').select(['score_sum', 'score_squares', 'ratings']).executeTakeFirstOrThrow();
    expect([Number(sums.score_sum), Number(sums.score_squares), Number(sums.ratings)]).toEqual([9, 0, 2]);
    expect((await storage.db.selectFrom('jobs').select('precision_reached_at').executeTakeFirstOrThrow()).precision_reached_at).toBeNull();
  } finally {
    await storage.close();
    await database.drop();
  }
});

it.each(DIALECTS)('%s: after migration 023 a pair job\'s sums are rebuilt to hold its pairs; its playlists are the study\'s and its design is fixed', async (dialect) => {
  const database = await createTestDatabase(dialect);
  const storage = await openStorage({ databaseUrl: database.url, migrate: false });
  try {
    await migrateTo(storage.db, dialect, '022_stop_for_precision');
    const at = '2026-01-01T00:00:00.000Z';
    await storage.db.insertInto('jobs').values({ id: 'pairs', protocol: 'pair_comparison', fields: '{}', created_at: at, updated_at: at } as never).execute();
    await storage.db.insertInto('playlists').values({ job_id: 'pairs', position: 0 } as never).execute();
    await storage.db.insertInto('accepted_sessions').values({ job_id: 'pairs', sessions: 3, stale: 0 } as never).execute();
    await migrateToLatest(storage.db, dialect);
    expect(await storage.db.selectFrom('accepted_sessions').select(['sessions', 'stale']).executeTakeFirstOrThrow()).toEqual({ sessions: 3, stale: 1 });
    expect(await storage.db.selectFrom('playlists').select(['position', 'adaptive']).execute()).toEqual([{ position: 0, adaptive: 0 }]);
    expect((await storage.db.selectFrom('jobs').select('design').executeTakeFirstOrThrow()).design).toBeNull();
    expect(await storage.db.selectFrom('adaptive_pending').selectAll().execute()).toEqual([]);
  } finally {
    await storage.close();
    await database.drop();
  }
});
