/**
 * How long storing one bubble mouse log holds the event loop (issue 21, item 4; docs/security.md, "Large valid
 * bodies"): `node --expose-gc --import tsx bench/api/mouse-log-block.ts [sqlite|postgres]`. For each size, the longest gap between 1 ms timer
 * ticks while the log is stored, best and worst of 5, by the paged path the server takes (storeScreening) and by one
 * insert statement of the same bytes (what the server did before migration 016). SQLite in DURABLE mode on a temp
 * file; PostgreSQL on a throwaway schema of the test database (testkit/pg-schema.ts).
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { BubblePlaylistStimulus, PlaylistResponse } from '../../src/contract/playlist.js';
import { buildApp } from '../../src/server/app.js';
import { storeScreening } from '../../src/server/storage/answers.js';
import { openStorage } from '../../src/server/storage/open.js';
import { nowIso } from '../../src/server/storage/types.js';
import { importStudy } from '../../src/server/study/import.js';
import { jobFields } from '../../testkit/job-fields.js';
import { benchDatabase } from '../shared/database.js';

const dialect = process.argv[2] === 'postgres' ? 'postgres' : 'sqlite';
const dir = await mkdtemp(join(tmpdir(), 'glimpse-mouse-block-'));
const database = await benchDatabase(dialect, dir, 'mouse_log_block');
const storage = await openStorage({ databaseUrl: database.url });
const app = await buildApp({ storage, mediaDir: join(dir, 'media'), webDir: join(dir, 'web'), mediaBaseUrl: '' });
const side = (source: string) => ({ source, height: 18, width: 32, blur: 4, radius: 6 });
await cp(join(import.meta.dirname, '../../tests/server/fixtures/media'), join(dir, 'study', 'media'), { recursive: true });
const study = { id: 'mouse-block', job: jobFields('bubble'), media: 'media', playlists: [{ stimuli: ['red.png', 'green.png', 'blue.png', 'yellow.png'].map((file, i) => ({ sourceA: side(file), sourceB: { ...side('red.png'), golden: i === 0 } })) }] };
await writeFile(join(dir, 'study', 'study.json'), JSON.stringify(study));
await importStudy(storage, join(dir, 'study', 'study.json'), join(dir, 'media'));

/** The longest the event loop went without running a 1 ms timer while `work` ran. */
async function longestBlock(work: () => Promise<unknown>): Promise<number> {
  // The previous log's garbage is collected before, not during, the measure (run with --expose-gc).
  (globalThis as { gc?: () => void }).gc?.();
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  [worst, last] = [0, performance.now()];
  await work();
  await new Promise((resolve) => setTimeout(resolve, 5));
  clearInterval(timer);
  return worst;
}

/** A mouse log of about `bytes` bytes of JSON: pointer samples as a 1000 Hz mouse gives them. */
function mouseLog(bytes: number): Buffer {
  const sample = (i: number) => ({ x: 512.25 + (i % 300) / 7, y: 384.5 - (i % 200) / 3, t: 1.000137 * i, vt: 1234.5 + i });
  const perSample = JSON.stringify(sample(100_000)).length + 1;
  const n = Math.floor(bytes / perSample / 2);
  return Buffer.from(JSON.stringify({ mediaA: Array.from({ length: n }, (_, i) => sample(i)), mediaB: Array.from({ length: n }, (_, i) => sample(i)) }));
}

let participant = 0;
async function newSession() {
  const res = await app.inject(`/api/getbubble/mouse-block?platform=prolific&PROLIFIC_PID=bench${participant++}`);
  const playlist = JSON.parse(res.body) as PlaylistResponse<BubblePlaylistStimulus>;
  // The 16 MiB log needs a session quota of 4 test stimuli (8 MiB each).
  const stimulusId = playlist.stimulis[0]!.stimuli_id;
  return { sessionId: playlist.session_id!, token: playlist.sessionToken!, stimulusId, dedupeKey: `p:${stimulusId}:0`, idempotencyKey: null };
}

const rows: string[] = [];
const range = (ms: number[]) => `${Math.min(...ms).toFixed(1)}–${Math.max(...ms).toFixed(1)}`;
// What the machine's other load alone costs a 1 ms timer over as long as a paged 8 MB log takes to store.
const idle: number[] = [];
for (let round = 0; round < 3; round++) idle.push(await longestBlock(() => new Promise((resolve) => setTimeout(resolve, 300))));
rows.push(`| nothing (300 ms idle) | ${range(idle)} | ${range(idle)} |`);
for (const bytes of [500_000, 2_000_000, 8_000_000, 16 * 1024 * 1024 - 4096]) {
  const log = mouseLog(bytes);
  const paged: number[] = [];
  const oneStatement: number[] = [];
  for (let round = 0; round < 5; round++) {
    const target = await newSession();
    paged.push(await longestBlock(() => storeScreening(storage, target, { screeningNo: 0, mouseLogs: log, timing: null })));
    const other = await newSession();
    oneStatement.push(
      await longestBlock(() =>
        storage.write(
          (trx) =>
            trx
              .insertInto('screenings')
              .values({ session_id: other.sessionId, stimulus_id: other.stimulusId, screening_no: 0, dedupe_key: other.dedupeKey, idempotency_key: null, mouse_logs: sql<string>`cast(${log} as text)`, log_key: null, bytes: log.length, timing: null, created_at: nowIso() })
              .execute(),
          { singleStatement: true },
        ),
      ),
    );
  }
  rows.push(`| ${(log.length / 1e6).toFixed(2)} MB | ${range(oneStatement)} | ${range(paged)} |`);
}
console.log(`${dialect}, ${new Date().toISOString()}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log('| mouse log | one statement: longest loop block (ms) | pages (storeScreening) |\n|---|---|---|');
console.log(rows.join('\n'));
await app.close();
await storage.close();
await database.drop();
await rm(dir, { recursive: true, force: true });
