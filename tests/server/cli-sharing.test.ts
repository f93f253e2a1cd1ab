import { spawn } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ATOMIC_STIMULI } from '../../src/server/storage/studies.js';
import { importStudy } from '../../src/server/study/import.js';
import { openStorage } from '../../src/server/storage/open.js';
import { getPlaylist, json, postJson, ratingBody, useServer, type GenericPlaylist } from '../../testkit/server.js';
import { PAIR_STUDY } from '../../testkit/studies.js';

/**
 * The CLI and the server share one SQLite file (issue 34, item 3): `cli import` of 1,000,000 stimuli held the write
 * lock 5.6 s, and the server's 5 s busy timeout made its event loop wait for it, every participant's request with
 * it. Now the server waits for another process's lock off the event loop, and a large study is created in short
 * transactions.
 */

/** Another process (as the CLI would) holds SQLite's write lock for `ms`; resolves once it holds it, with its end. */
async function holdWriteLock(file: string, ms: number): Promise<{ released: Promise<void> }> {
  const script = `const db = new (require('better-sqlite3'))(process.argv[1]); db.pragma('busy_timeout = 5000'); db.exec('begin immediate'); console.log('held'); setTimeout(() => { db.exec('commit'); db.close(); }, ${ms});`;
  const child = spawn(process.execPath, ['-e', script, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  return { released: new Promise((resolve) => child.once('exit', () => resolve())) };
}

describe('the CLI beside the server (SQLite)', () => {
  const ctx = useServer('sqlite');

  it('keeps the event loop free while another process holds the write lock; the rating waits and is stored', async () => {
    await ctx().importStudy(PAIR_STUDY);
    const p = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair'));
    const lock = await holdWriteLock(ctx().database.url, 1500);
    const started = performance.now();
    const rating = postJson(ctx().app, '/api/ratings/', ratingBody(p, p.stimulis[0].stimuliId)).then((res) => ({ status: res.statusCode, ms: performance.now() - started }));
    // Meanwhile the server answers what needs no write at once (before: the loop sat in SQLite's busy wait).
    await new Promise((resolve) => setTimeout(resolve, 200));
    const readStarted = performance.now();
    expect((await ctx().app.inject({ method: 'GET', url: '/meta.json' })).statusCode).toBe(200);
    expect(performance.now() - readStarted).toBeLessThan(100);
    const answered = await rating;
    await lock.released;
    expect(answered.status).toBe(201);
    expect(answered.ms).toBeGreaterThan(1000);
    expect(await ctx().storage.db.selectFrom('ratings').select('value').execute()).toEqual([{ value: 1 }]);
  });

  it(`creates a study of more than ${ATOMIC_STIMULI} stimuli in short transactions: a participant's rating is stored while it is imported`, async () => {
    await ctx().importStudy(PAIR_STUDY);
    const p = json<GenericPlaylist>(await getPlaylist(ctx().app, '/api/getrandomtasks/fixture-pair'));
    // Three playlists (at most 10,000 stimuli each) of pairs of the fixture's images.
    const images = ['red.png', 'green.png', 'blue.png', 'yellow.png'];
    const total = 3 * Math.ceil((ATOMIC_STIMULI + 1) / 3);
    const playlists = [0, 1, 2].map((n) => ({ stimuli: Array.from({ length: total / 3 }, (_, i) => ({ sourceA: images[(i + n) % 4]!, sourceB: images[(i + n + 1) % 4]! })) }));
    const file = join(ctx().database.dir, 'large-study.json');
    const pair = JSON.parse(await readFile(PAIR_STUDY, 'utf8')) as { job: unknown };
    await cp(resolve(dirname(PAIR_STUDY), 'media'), join(ctx().database.dir, 'media'), { recursive: true });
    await writeFile(file, JSON.stringify({ id: 'large', job: pair.job, media: 'media', playlists }));
    // The importing "CLI": its own connection to the same file.
    const cliStorage = await openStorage({ databaseUrl: ctx().database.url });
    let importDone = false;
    const importing = importStudy(cliStorage, file, ctx().mediaDir).finally(() => (importDone = true));
    importing.catch(() => undefined);
    // Wait until the job exists as a draft (its stimuli are being written), then rate.
    await expect.poll(async () => (await ctx().storage.db.selectFrom('jobs').select('status').where('id', '=', 'large').executeTakeFirst())?.status, { timeout: 30_000, interval: 5 }).toBe('draft');
    const res = await postJson(ctx().app, '/api/ratings/', ratingBody(p, p.stimulis[0].stimuliId));
    expect(res.statusCode).toBe(201);
    expect(importDone).toBe(false);
    expect((await importing).status).toBe('created');
    const counted = await ctx().storage.db.selectFrom('stimuli').innerJoin('playlists', 'playlists.id', 'stimuli.playlist_id').select((eb) => eb.fn.countAll<number>().as('n')).where('playlists.job_id', '=', 'large').executeTakeFirstOrThrow();
    expect(Number(counted.n)).toBe(total);
    expect(await ctx().storage.db.selectFrom('jobs').select(['status', 'source']).where('id', '=', 'large').executeTakeFirst()).toEqual({ status: 'open', source: file });
    // The same file again changes nothing and writes nothing.
    expect((await importStudy(cliStorage, file, ctx().mediaDir)).status).toBe('unchanged');
    await cliStorage.close();
  }, 60_000);
});
