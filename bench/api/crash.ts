/**
 * npm run crash:ratings [-- --sqlite] — kill -9 under load: a Glimpse node (bench/api/target.ts) on PostgreSQL (a
 * throwaway schema of the local test database) or on an SQLite file takes ratings from 64 concurrent clients for
 * 3 s and is killed with SIGKILL, three rounds (rounds 2 and 3 join the same database as new nodes). Every rating
 * that was acknowledged (201) must be stored with its session, stimulus and value. A script, not a CI test: it
 * takes about a minute. Exit code 1 when one is missing.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openStorage } from '../../src/server/storage/open.js';
import { createPgSchema } from '../../testkit/pg-schema.js';
import { countRows, ratingsById } from '../../testkit/rows.js';

const sqlite = process.argv.includes('--sqlite');
const dir = await mkdtemp(join(tmpdir(), 'glimpse-crash-'));
const pg = sqlite ? null : await createPgSchema('glimpse_crash');
const databaseUrl = pg ? pg.url : join(dir, 'crash.sqlite');
let acknowledged = 0;
let missing = 0;
for (let round = 0; round < 3; round++) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/api/target.ts', round === 0 ? 'glimpse' : 'join', databaseUrl, String(round)], { env: { ...process.env, RATE_LIMIT_SESSIONS_PER_MINUTE: '0', RATE_LIMIT_ANSWERS_PER_MINUTE: '0' }, stdio: ['pipe', 'pipe', 'inherit'] });
  const line: string = await new Promise((r) => createInterface({ input: child.stdout! }).once('line', r));
  const prepared = JSON.parse(line) as { url: string; sessions: Array<{ id: number; token: string }>; stimuli: number[] };
  const acks: Array<{ id: number; session: number; stimulus: number; value: number }> = [];
  let stop = false;
  let i = 0;
  const worker = async () => {
    while (!stop) {
      const k = i++;
      const s = prepared.sessions[k % prepared.sessions.length]!;
      const st = prepared.stimuli[Math.floor(k / prepared.sessions.length)]!;
      try {
        const res = await fetch(`${prepared.url}/api/ratings/`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': `r${round}-${k}` }, body: JSON.stringify({ stimuli_id: st, session_id: s.id, session_token: s.token, value: k % 2, nbReplay: 0, logs: null }) });
        if (res.status === 201) acks.push({ ...((await res.json()) as { id: number }), session: s.id, stimulus: st, value: k % 2 });
      } catch {
        return;
      }
    }
  };
  const workers = Array.from({ length: 64 }, worker);
  await new Promise((r) => setTimeout(r, 3000));
  child.kill('SIGKILL');
  stop = true;
  await Promise.all(workers);
  const storage = await openStorage({ databaseUrl, migrate: false });
  const stored = await ratingsById(storage, acks.map((a) => a.id));
  for (const a of acks) {
    const r = stored.get(a.id);
    if (!r || r.session_id !== a.session || r.stimulus_id !== a.stimulus || r.value !== a.value) missing++;
  }
  const rows = await countRows(storage, 'ratings');
  await storage.close();
  acknowledged += acks.length;
  console.log(`round ${round}: ${acks.length} acknowledged, ${rows} rows stored, missing so far ${missing}`);
}
await pg?.drop();
await rm(dir, { recursive: true, force: true });
console.log(`kill -9 x3 on ${pg ? 'PostgreSQL' : 'SQLite'}: ${acknowledged} acknowledged ratings, ${missing} missing`);
process.exit(missing === 0 ? 0 : 1);
