/**
 * SQLITE_SYNCHRONOUS=DURABLE (the default): a write is acknowledged only after the WAL holding its commit has been
 * fdatasync'ed (storage/wal-sync.ts). The disk cannot be made slow or failing on demand, so some tests wrap the real
 * file operations: a sync held back by a gate (then really performed), or one that fails like a disk error.
 */
import { fstatSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { configFromEnv } from '../../src/server/config.js';
import { startCheckpointer } from '../../src/server/storage/checkpointer.js';
import { openStorage } from '../../src/server/storage/open.js';
import { nowIso, type Storage } from '../../src/server/storage/types.js';
import { realWalFileOps, type WalFileOps } from '../../src/server/storage/wal-sync.js';
import { importStudy } from '../../src/server/study/import.js';
import { createTestDatabase, type TestDatabase } from '../../testkit/databases.js';
import { countRows, getPlaylist, json, postJson, ratingBody, type GenericPlaylist } from '../../testkit/server.js';
import { PAIR_STUDY } from '../../testkit/studies.js';

/** Real file operations, recorded, with switches to hold syncs back or make them fail. */
class WalOpsProbe {
  opened: number[] = [];
  synced: number[] = [];
  failOpen = false;
  failSync = false;
  private gate: Promise<void> | null = null;
  private openGate: (() => void) | null = null;
  private entered: Array<() => void> = [];

  readonly ops: Partial<WalFileOps> = {
    open: async (path) => {
      if (this.failOpen) throw Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
      const fd = await realWalFileOps.open(path);
      this.opened.push(fd);
      return fd;
    },
    datasync: async (fd) => {
      this.entered.splice(0).forEach((notify) => notify());
      await this.gate;
      if (this.failSync) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
      await realWalFileOps.datasync(fd);
      this.synced.push(fd);
    },
  };

  /** Syncs from now on wait until release(). */
  hold(): void {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }
  release(): void {
    this.openGate?.();
    this.gate = null;
  }
  /** Resolves when the next sync starts. */
  nextSync(): Promise<void> {
    return new Promise((resolve) => this.entered.push(resolve));
  }
}

const walOf = (database: TestDatabase) => `${database.url}-wal`;

const insertBcheck = (storage: Storage, name: string) =>
  storage.write((trx) => trx.insertInto('bchecks').values({ b_name: name, b_version: '1', b_os: 'Linux', screen_size: '1x1', created_at: nowIso() }).execute());

const bcheckNames = async (storage: Storage) => (await storage.db.selectFrom('bchecks').select('b_name').orderBy('id').execute()).map((r) => r.b_name);

describe('DURABLE mode: ratings over HTTP', () => {
  let database: TestDatabase;
  let probe: WalOpsProbe;
  let server: { storage: Storage; app: FastifyInstance } | null;
  const mediaDir = () => join(database.dir, 'media');

  async function start(ops: Partial<WalFileOps>) {
    const storage = await openStorage({ databaseUrl: database.url, walFileOps: ops });
    const app = await buildApp({ storage, mediaDir: mediaDir(), webDir: join(database.dir, 'web'), mediaBaseUrl: '' });
    server = { storage, app };
    return server;
  }
  async function stop() {
    await server?.app.close();
    await server?.storage.close();
    server = null;
  }

  beforeEach(async () => {
    database = await createTestDatabase('sqlite');
    await mkdir(mediaDir(), { recursive: true });
    probe = new WalOpsProbe();
    const { storage, app } = await start(probe.ops);
    await importStudy(storage, PAIR_STUDY, mediaDir());
    playlist = json<GenericPlaylist>(await getPlaylist(app, '/api/getrandomtasks/fixture-pair'));
  });
  afterEach(async () => {
    probe.release();
    await stop();
    await database.drop();
  });
  let playlist: GenericPlaylist;

  it('answers a rating only after the WAL sync that follows its commit has finished', async () => {
    const { app, storage } = server!;
    probe.hold();
    const syncStarted = probe.nextSync();
    let answered = false;
    const response = postJson(app, '/api/ratings/', ratingBody(playlist, playlist.stimulis[0].stimuliId)).then((res) => ((answered = true), res));
    await syncStarted;
    // Committed (readable) but its sync is held back: no answer yet, however long we wait.
    expect(await countRows(storage, 'ratings')).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);

    probe.release();
    const res = await response;
    expect(res.statusCode).toBe(201);
    // The descriptor synced is the live WAL file's.
    const fd = probe.synced.at(-1)!;
    expect(fstatSync(fd).ino).toBe(statSync(walOf(database)).ino);
    expect(probe.opened).toEqual([fd]);
  });

  it('a failing WAL sync: the client gets 503, never a 2xx, and every later write is refused until a restart', async () => {
    const { app, storage } = server!;
    const loud = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    probe.failSync = true;
    const key = { 'idempotency-key': '0e7c9a3c-1d5b-4f0e-9d43-3e8f5c2b7a10' };
    const body = ratingBody(playlist, playlist.stimulis[0].stimuliId);
    const first = await postJson(app, '/api/ratings/', body, key);
    expect(first.statusCode).toBe(503);
    expect(json(first).error).toBe('STORAGE_UNAVAILABLE');
    // The client is told when to try again (the web client's outbox retries a 503 anyway).
    expect(first.headers['retry-after']).toBe('5');
    expect(loud.mock.calls.flat().join('\n')).toMatch(/GLIMPSE STORAGE: fdatasync of .*-wal failed \(EIO/);
    // The commit itself happened (SQLite cannot take it back), it just was never acknowledged.
    expect(await countRows(storage, 'ratings')).toBe(1);

    // Even with the disk answering again, nothing is written or acknowledged on this run: the retry, another
    // rating, a new session.
    probe.failSync = false;
    expect((await postJson(app, '/api/ratings/', body, key)).statusCode).toBe(503);
    expect((await postJson(app, '/api/ratings/', ratingBody(playlist, playlist.stimulis[1].stimuliId))).statusCode).toBe(503);
    expect((await getPlaylist(app, '/api/getrandomtasks/fixture-pair', 'platform=prolific&PROLIFIC_PID=second')).statusCode).toBe(503);
    expect(await countRows(storage, 'ratings')).toBe(1);
    expect(await countRows(storage, 'sessions')).toBe(1);
    loud.mockRestore();

    // After a restart the client's retry (same key) is acknowledged once the sync succeeds: the stored row, 200.
    await stop();
    const restarted = await start(realWalFileOps);
    const retry = await postJson(restarted.app, '/api/ratings/', body, key);
    expect(retry.statusCode).toBe(200);
    expect(json(retry)).toMatchObject({ stimuli_id: body.stimuli_id, session_id: body.session_id });
    expect(await countRows(restarted.storage, 'ratings')).toBe(1);
  });
});

describe('DURABLE mode: the WAL descriptor', () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterEach(() => database.drop());

  it('survives a TRUNCATE checkpoint: same file, synced again, every acknowledged write there after reopening', async () => {
    const probe = new WalOpsProbe();
    const storage = await openStorage({ databaseUrl: database.url, walFileOps: probe.ops });
    try {
      await insertBcheck(storage, 'before checkpoint');
      const [fd] = probe.opened;
      const inode = fstatSync(fd).ino;
      expect(statSync(walOf(database)).size).toBeGreaterThan(0);

      // A second checkpointer thread, stopped at once: stopping checkpoints with TRUNCATE (checkpointer.ts).
      await startCheckpointer(database.url, (error) => expect.fail(error.message)).stop();
      expect(statSync(walOf(database)).size).toBe(0);
      expect(statSync(walOf(database)).ino).toBe(inode);

      const syncsBefore = probe.synced.length;
      await insertBcheck(storage, 'after checkpoint');
      // The new frames went to the same file, which the kept descriptor synced before acknowledging.
      expect(statSync(walOf(database)).size).toBeGreaterThan(0);
      expect(statSync(walOf(database)).ino).toBe(inode);
      expect(probe.synced.slice(syncsBefore)).toEqual([fd]);
      expect(probe.opened).toEqual([fd]);
    } finally {
      await storage.close();
    }
    const reopened = await openStorage({ databaseUrl: database.url });
    try {
      expect(await bcheckNames(reopened)).toEqual(['before checkpoint', 'after checkpoint']);
    } finally {
      await reopened.close();
    }
  });

  it('a WAL that cannot be opened refuses that batch (503) and the next batch tries again', async () => {
    const loud = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const probe = new WalOpsProbe();
    probe.failOpen = true;
    const storage = await openStorage({ databaseUrl: database.url, walFileOps: probe.ops });
    try {
      await expect(insertBcheck(storage, 'refused')).rejects.toMatchObject({ statusCode: 503, code: 'STORAGE_UNAVAILABLE' });
      expect(loud.mock.calls.flat().join('\n')).toMatch(/GLIMPSE STORAGE: cannot open or sync .*-wal \(EMFILE/);
      probe.failOpen = false;
      await insertBcheck(storage, 'accepted');
      expect(probe.opened).toHaveLength(1);
      expect(probe.synced).toEqual(probe.opened);
    } finally {
      loud.mockRestore();
      await storage.close();
    }
  });

  it('writes arriving during a sync wait for it, then share one commit and one next sync', async () => {
    const probe = new WalOpsProbe();
    const storage = await openStorage({ databaseUrl: database.url, walFileOps: probe.ops });
    try {
      await insertBcheck(storage, 'first');
      const syncsBefore = probe.synced.length;
      probe.hold();
      const started = probe.nextSync();
      const held = insertBcheck(storage, 'held');
      await started;
      // Three writes, in three event-loop turns, while that sync is held back: none is committed yet (they would
      // wait for the next sync anyway), so they do not cost three commits.
      const later: Array<Promise<unknown>> = [];
      for (const name of ['a', 'b', 'c']) {
        later.push(insertBcheck(storage, name));
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(await bcheckNames(storage)).toEqual(['first', 'held']);
      probe.release();
      await Promise.all([held, ...later]);
      expect(await bcheckNames(storage)).toEqual(['first', 'held', 'a', 'b', 'c']);
      expect(probe.synced.length - syncsBefore).toBe(2);
    } finally {
      probe.release();
      await storage.close();
    }
  });
});

describe('SQLITE_SYNCHRONOUS', () => {
  it('DURABLE and NORMAL run the connection with synchronous=NORMAL (1), FULL with FULL (2)', async () => {
    for (const [mode, level] of [['DURABLE', 1], ['NORMAL', 1], ['FULL', 2]] as const) {
      const database = await createTestDatabase('sqlite');
      const storage = await openStorage({ databaseUrl: database.url, sqliteSynchronous: mode });
      try {
        const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(storage.db);
        expect([mode, rows[0].synchronous]).toEqual([mode, level]);
      } finally {
        await storage.close();
        await database.drop();
      }
    }
  });

  it('defaults to DURABLE, accepts FULL and NORMAL in any case, refuses anything else', () => {
    expect(configFromEnv({}).sqliteSynchronous).toBe('DURABLE');
    expect(configFromEnv({ SQLITE_SYNCHRONOUS: '' }).sqliteSynchronous).toBe('DURABLE');
    expect(configFromEnv({ SQLITE_SYNCHRONOUS: 'full' }).sqliteSynchronous).toBe('FULL');
    expect(configFromEnv({ SQLITE_SYNCHRONOUS: 'NORMAL' }).sqliteSynchronous).toBe('NORMAL');
    expect(() => configFromEnv({ SQLITE_SYNCHRONOUS: 'OFF' })).toThrow('SQLITE_SYNCHRONOUS must be DURABLE, FULL, NORMAL; got OFF');
  });
});
