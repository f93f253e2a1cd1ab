// Dev-only A/B driver (not part of the repo): runs autocannon against bench/api/target.ts for given modes.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

async function run(mode: string, seconds: number) {
  const dir = mkdtempSync(join(tmpdir(), 'ab-'));
  const args = mode === 'bare' ? ['bare'] : ['glimpse', join(dir, 'x.sqlite')];
  const child = spawn('npx', ['tsx', 'bench/api/target.ts', ...args], { env: { ...process.env, SQLITE_SYNCHRONOUS: mode }, stdio: 'pipe' });
  child.stderr.pipe(process.stderr);
  const lines = createInterface({ input: child.stdout });
  const it = lines[Symbol.asyncIterator]();
  const prepared = JSON.parse((await it.next()).value);
  let n = 0;
  const glimpse = prepared.sessions.length > 0;
  const go = (d: number) => autocannon({ url: prepared.url, connections: 100, duration: d, requests: [{ method: 'POST', path: glimpse ? '/api/ratings/' : '/', setupRequest: (r: any) => { const i = n++; const s = glimpse ? prepared.sessions[i % 100] : { id: 1, token: 'x' }; r.headers = { 'content-type': 'application/json', 'idempotency-key': `${mode}-${i}` }; r.body = JSON.stringify({ stimuli_id: glimpse ? prepared.stimuli[Math.floor(i / 100) % prepared.stimuli.length] : 1, session_id: s.id, session_token: s.token, value: 1, nbReplay: 0, logs: '[]' }); return r; } }] } as any);
  await go(1);
  const r: any = await go(seconds);
  child.stdin.write('count\n');
  const stats = (await it.next()).value;
  child.stdin.end();
  console.log(mode.padEnd(8), 'rps', Math.round(r.requests.average), 'p50', r.latency.p50, 'p99', r.latency.p99, 'non2xx', r.non2xx, stats);
}
const modes = process.argv.slice(2);
for (const m of modes) await run(m, Number(process.env.S ?? 4));
process.exit(0);
