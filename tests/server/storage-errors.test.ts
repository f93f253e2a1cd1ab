/**
 * Storage errors a retry may not meet (issue 34): a full disk, an I/O error, a busy or restarting database, a lost
 * connection. The client gets 503 STORAGE_UNAVAILABLE with Retry-After and a message saying that nothing was stored
 * (the web client's answer outbox retries it with the same Idempotency-Key), never a bare 500 INTERNAL.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, rmSync, statfsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { STORAGE_RETRY_SECONDS, transientStorageError } from '../../src/server/errors.js';
import { openStorage } from '../../src/server/storage/open.js';
import type { Storage } from '../../src/server/storage/types.js';
import { importStudy } from '../../src/server/study/import.js';
import { describeEachDialect } from '../../testkit/databases.js';
import { getPlaylist, json, postJson, ratingBody, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { studyOf, writeStudy } from '../../testkit/studies.js';

const acrStudy = (id: string, perPlaylist: number) => writeStudy(studyOf('absolute_category_rating', { id, playlists: 1, perPlaylist }));

/** The refusal every such error gets: 503, Retry-After, and words saying it was not stored and to send it again. */
function expectRefusal(res: LightMyRequestResponse, reason: RegExp) {
  expect(res.statusCode).toBe(503);
  expect(res.headers['retry-after']).toBe(String(STORAGE_RETRY_SECONDS));
  expect(json(res)).toMatchObject({ error: 'STORAGE_UNAVAILABLE', message: expect.stringMatching(/^not stored: .*; send the same request again in a few seconds$/) });
  expect(json(res).message).toMatch(reason);
}

describe('which storage errors are worth a retry', () => {
  const pgError = (code: string) => Object.assign(new pg.DatabaseError('refused', 0, 'error'), { code });
  const sqliteError = (code: string) => Object.assign(new Error('refused'), { code });

  it('maps full disks, I/O errors, busy databases, deadlocks and lost connections to 503; anything else stays a 500', () => {
    for (const code of ['53100', '53200', '53300', '40001', '40P01', '55P03', '57P01', '57P03', '08006', '58030']) expect(transientStorageError(pgError(code))?.statusCode).toBe(503);
    for (const code of ['SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_IOERR_WRITE', 'SQLITE_IOERR_FSYNC', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_NOMEM']) {
      expect(transientStorageError(sqliteError(code))?.statusCode).toBe(503);
    }
    const socketError = (code: string, syscall: string) => Object.assign(new Error(`${syscall} ${code}`), { code, syscall });
    for (const error of [socketError('ECONNREFUSED', 'connect'), socketError('ECONNRESET', 'read'), new Error('Connection terminated unexpectedly'), new Error('timeout exceeded when trying to connect')]) {
      expect(transientStorageError(error)?.body()).toMatchObject({ error: 'STORAGE_UNAVAILABLE', message: expect.stringMatching(/^not confirmed: the connection to the database failed/), retryAfterSeconds: STORAGE_RETRY_SECONDS });
    }
    expect(transientStorageError(pgError('53100'))?.message).toBe("not stored: the database server's disk is full; send the same request again in a few seconds");
    // Bugs and refusals that a retry meets again: unique and foreign-key violations, syntax, a 5-letter code of another kind.
    for (const error of [pgError('23505'), pgError('23503'), pgError('42601'), sqliteError('SQLITE_CONSTRAINT_FOREIGNKEY'), sqliteError('SQLITE_ERROR'), Object.assign(new Error('x'), { code: '53100' }), new Error('boom'), null]) {
      expect(transientStorageError(error)).toBeNull();
    }
    // A participant's page that aborts its upload is not the database failing.
    for (const error of [Object.assign(new Error('aborted'), { code: 'ECONNRESET' }), Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT', syscall: 'open' })]) {
      expect(transientStorageError(error)).toBeNull();
    }
  });
});

describeEachDialect('a write the database refuses', (dialect) => {
  const ctx = useServer(dialect);

  /** Makes the database refuse new rows as a full disk does: SQLite past max_page_count, PostgreSQL disk_full (53100). */
  async function fillDatabase(storage: Storage): Promise<() => Promise<void>> {
    if (dialect === 'sqlite') {
      const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(storage.db);
      await sql.raw(`pragma max_page_count = ${rows[0]!.page_count}`).execute(storage.db);
      return async () => void (await sql.raw('pragma max_page_count = 1073741823').execute(storage.db));
    }
    await sql`create function disk_full() returns trigger language plpgsql as $$ begin raise exception 'could not extend file: No space left on device' using errcode = 'disk_full'; end $$`.execute(storage.db);
    await sql`create trigger disk_full before insert on ratings for each row execute function disk_full()`.execute(storage.db);
    return async () => void (await sql`drop trigger disk_full on ratings`.execute(storage.db));
  }

  it('answers 503 STORAGE_UNAVAILABLE with Retry-After, and the same request is stored once there is room', async () => {
    await ctx().importStudy(await acrStudy('refused', 2));
    const playlist = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getacr/refused', 'platform=prolific&PROLIFIC_PID=R1'));
    // Large enough to need new pages on SQLite (overflow pages), small enough to need no session token header.
    const body = ratingBody(playlist, playlist.stimulis[0]!.stimuliId, { logs: `inner:1280x720;outer:1280x720;screen:1280x720;fullscreen:1;note:${'x'.repeat(12_000)}` });
    const key = { 'idempotency-key': randomUUID() };
    const loud = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const room = await fillDatabase(ctx().storage);

    const refused = await postJson(ctx().app, '/api/ratings/', body, key);
    expectRefusal(refused, /disk is full/);
    expect(loud.mock.calls.flat().join('\n')).toMatch(/GLIMPSE STORAGE: requests refused with 503/);
    loud.mockRestore();
    expect(await ctx().storage.db.selectFrom('ratings').select('id').execute()).toEqual([]);

    await room();
    const stored = await postJson(ctx().app, '/api/ratings/', body, key);
    expect(stored.statusCode).toBe(201);
    expect(await ctx().storage.db.selectFrom('ratings').select('id').execute()).toEqual([{ id: json(stored).id }]);
  });
});

/**
 * Mounts a small tmpfs (we run as root in CI and here); where mounting is not permitted, SQLite's max_page_count
 * stands in for the full disk (said on stderr).
 */
function smallDisk(dir: string, bytes: number) {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    console.warn(`!!! cannot mount a tmpfs (${(error as Error).message.split('\n')[0]}): the full disk is SQLite's max_page_count instead`);
    return null;
  }
  const filler = join(dir, 'filler');
  return {
    /** Writes up to `bytes` more into a filler file; false once the disk is full. */
    fill(more: number): boolean {
      try {
        appendFileSync(filler, Buffer.alloc(more, 1));
        return true;
      } catch {
        return false;
      }
    },
    free: () => rmSync(filler, { force: true }),
    freeBytes: () => statfsSync(dir).bavail * statfsSync(dir).bsize,
    unmount: () => execFileSync('umount', [dir], { stdio: 'pipe' }),
  };
}

describe('SQLite on a disk that fills up, through the real app', () => {
  it('refuses ratings with 503 + Retry-After, loses none it acknowledged, and takes them again once space is freed, without a restart', async () => {
    const root = await mkdtemp(join(tmpdir(), 'glimpse-full-'));
    const mount = join(root, 'disk');
    await mkdir(mount);
    const disk = smallDisk(mount, 8 * 1024 * 1024);
    const mediaDir = join(root, 'media');
    await mkdir(mediaDir);
    const storage = await openStorage({ databaseUrl: join(mount, 'glimpse.sqlite') });
    // A page cache of a few pages spills inside a batch, as a large batch does: the disk is then found full by a
    // statement in the middle of the batch, and SQLite rolls the whole transaction back (group-commit.ts).
    await sql`pragma cache_size = 4`.execute(storage.db);
    const app = await buildApp({ storage, mediaDir, webDir: join(root, 'web'), mediaBaseUrl: '' });
    const loud = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await importStudy(storage, await acrStudy('full', 40), mediaDir);
      // Every rating a presentation of its own (40 stimuli a session), each with its own Idempotency-Key.
      const posts: Array<{ key: string; body: Record<string, unknown> }> = [];
      for (let p = 0; p < 8; p++) {
        const playlist = json<GenericPlaylist>(await getPlaylist(app, '/api/getacr/full', `platform=prolific&PROLIFIC_PID=FULL${p}`));
        for (const s of playlist.stimulis) posts.push({ key: randomUUID(), body: ratingBody(playlist, s.stimuliId, { logs: `inner:1280x720;outer:1280x720;screen:1280x720;fullscreen:1;pad:${'y'.repeat(3000)}` }) });
      }
      const send = (post: (typeof posts)[number]) => postJson(app, '/api/ratings/', post.body, { 'idempotency-key': post.key });
      const answers = new Map<string, LightMyRequestResponse>();
      const sendWave = async (wave: typeof posts) => (await Promise.all(wave.map(send))).forEach((res, i) => answers.set(wave[i]!.key, res));

      // Waves of 8 posts sent together (they share group commits), the disk filled a little more after each, until
      // writes fail; then two more waves on the full disk.
      const fullAt = { wave: -1, freeBytes: 0 };
      let next = 0;
      let fullWaves = 0;
      while (next < posts.length && fullWaves < 3) {
        await sendWave(posts.slice(next, (next += 8)));
        if ([...answers.values()].some((r) => r.statusCode !== 201)) {
          if (fullWaves++ === 0) Object.assign(fullAt, { wave: next / 8, freeBytes: disk?.freeBytes() ?? 0 });
        } else if (disk) {
          while (disk.freeBytes() > 64 * 1024 && disk.fill(256 * 1024));
          disk.fill(16 * 1024);
        } else {
          const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(storage.db);
          await sql.raw(`pragma max_page_count = ${rows[0]!.page_count + 2}`).execute(storage.db);
        }
      }
      const acknowledged = posts.filter((p) => answers.get(p.key)?.statusCode === 201);
      const refused = posts.filter((p) => answers.has(p.key) && answers.get(p.key)!.statusCode !== 201);
      console.info(`full disk (${disk ? 'tmpfs 8 MiB' : 'max_page_count'}): ${acknowledged.length} ratings acknowledged, the first refusal in wave ${fullAt.wave} with ${fullAt.freeBytes} bytes free, ${refused.length} refused`);
      expect(acknowledged.length).toBeGreaterThan(0);
      expect(refused.length).toBeGreaterThan(0);
      for (const p of refused) expectRefusal(answers.get(p.key)!, /disk is full|disk failed/);

      const storedKeys = async () => (await storage.db.selectFrom('ratings').select('idempotency_key').execute()).map((r) => r.idempotency_key).sort();
      // Every acknowledged rating is there, and no refused one was stored behind the client's back.
      expect(await storedKeys()).toEqual(acknowledged.map((p) => p.key).sort());

      // Space again: the refused ratings, sent again with their keys, are stored by the same running server.
      if (disk) disk.free();
      else await sql.raw('pragma max_page_count = 1073741823').execute(storage.db);
      const retried = await Promise.all(refused.map(send));
      expect(retried.map((r) => r.statusCode)).toEqual(refused.map(() => 201));
      expect(await storedKeys()).toEqual([...acknowledged, ...refused].map((p) => p.key).sort());
    } finally {
      loud.mockRestore();
      await app.close();
      await storage.close();
      disk?.unmount();
      await rm(root, { recursive: true, force: true });
    }
  });
});
