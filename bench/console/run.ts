/**
 * npm run bench:console [-- --postgres] — what participants and researchers feel while others push the server
 * (issue 21, item 3): `/meta.json` and a rating post, each probed in a loop, first on an idle server, then while
 * 20 sessions post 8 MB session logs back to back (a new session when one's quota is spent) and 3 consoles watch
 * the job's live statistics. The server is its own process (testkit/node-server.ts), so the load generator never
 * shares its event loop. Prints the latencies and their ratio to the idle run; writes bench/results/console.json.
 */
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { SESSION_TOKEN_HEADER } from '../../src/contract/payloads.js';
import { hashPassword } from '../../src/server/console/passwords.js';
import { openStorage } from '../../src/server/storage/open.js';
import { createUser } from '../../src/server/storage/users.js';
import { importStudy } from '../../src/server/study/import.js';
import { jobFields } from '../../testkit/job-fields.js';
import { startNode } from '../../testkit/node-process.js';
import { benchDatabase } from '../shared/database.js';
import { summary, type Summary } from '../shared/measure.js';
import { writeBenchResult } from '../shared/run-stamp.js';
import { LARGE_BODY_RETRY_SECONDS } from '../../src/server/body/large-bodies.js';

const PHASE_S = Number(process.env.BENCH_DURATION_S ?? 8);
const POSTERS = 20;
const CONSOLES = 3;
const TARGET_P99_MS = 50;
const PASSWORD = 'bench password 123';

type Latencies = Pick<Summary, 'n' | 'p50' | 'p99' | 'max'> & { failures: number };

/**
 * The shared latency summary (bench/shared/measure.ts), with the keys console.json always had (n, p50, p99, max:
 * not p95, mean, sd nor min), with failures.
 */
function latencies(ms: number[], failures: number): Latencies {
  const { n, p50, p99, max } = summary(ms);
  return { n, p50, p99, max, failures };
}

/** A session log of about 8 MB (under the route's 8 MiB), valid; its token set per session. */
function bigLog(): { head: string; tail: string } {
  const moves = Array.from({ length: 100_000 }, (_, i) => ({ posX: 1234.5 + (i % 500), posY: 678.25, time: 100_000 + i * 16.7 }));
  const clicks = Array.from({ length: 16_000 }, (_, i) => ({ button: 0, component_id: `stage-button-${'x'.repeat(80)}-${i}`, pageX: 10.5, pageY: 20.5, time: 1000 + i }));
  const rest = { logStates: [{ state: 'Test', status: 'test', time: 1 }], logMouseMovement: moves, logMouseClick: clicks, logScroll: [], logKeyboard: [], logFocus: [], logDomSize: [] };
  const json = JSON.stringify(rest);
  return { head: '{"sessionToken":"', tail: `",${json.slice(1)}` };
}

async function prepare(databaseUrl: string, dir: string): Promise<string> {
  const studyDir = join(dir, 'study');
  await mkdir(studyDir, { recursive: true });
  await cp(resolve('tests/server/fixtures/media'), join(studyDir, 'media'), { recursive: true });
  const studyFile = join(studyDir, 'study.json');
  await writeFile(studyFile, JSON.stringify({ id: 'bench', media: 'media', job: jobFields('pair_comparison'), playlists: [{ stimuli: Array.from({ length: 300 }, () => ({ sourceA: 'red.png', sourceB: 'green.png' })) }] }));
  const mediaDir = join(dir, 'media');
  const storage = await openStorage({ databaseUrl });
  await importStudy(storage, studyFile, mediaDir);
  await createUser(storage, 'bench@lab.example', await hashPassword(PASSWORD));
  await storage.close();
  return mediaDir;
}

async function main(): Promise<void> {
  const postgres = process.argv.includes('--postgres');
  const dir = await mkdtemp(join(tmpdir(), 'glimpse-bench-console-'));
  const database = await benchDatabase(postgres ? 'postgres' : 'sqlite', dir, postgres ? 'console' : 'bench');
  const databaseUrl = database.url;
  const mediaDir = await prepare(databaseUrl, dir);
  const server = await startNode({ DATABASE_URL: databaseUrl, MEDIA_DIR: mediaDir, RATE_LIMIT_SESSIONS_PER_MINUTE: '0', RATE_LIMIT_ANSWERS_PER_MINUTE: '0' });
  const base = server.url;
  const call = async (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, init);
  const newSession = async () => (await (await call(`/api/getrandomtasks/bench?platform=prolific&PROLIFIC_PID=p${Math.random().toString(36).slice(2)}`)).json()) as { session_id: number; sessionToken: string; stimulis: Array<{ stimuliId: number }> };

  // Probes: /meta.json and rating posts (each a presentation not answered yet), one at a time each.
  let probing = true;
  const probe = async (name: 'meta' | 'rating', out: { ms: number[]; failures: number }) => {
    let session = await newSession();
    let next = 0;
    let key = 0;
    while (probing) {
      const started = performance.now();
      let ok: boolean;
      if (name === 'meta') ok = (await call('/meta.json')).ok;
      else {
        if (next >= session.stimulis.length) (session = await newSession()), (next = 0);
        const stimulus = session.stimulis[next++]!.stimuliId;
        const res = await call('/api/ratings/', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': `probe-${Date.now()}-${key++}` },
          body: JSON.stringify({ stimuli_id: stimulus, session_id: session.session_id, session_token: session.sessionToken, value: 1, nbReplay: 0, logs: '[]' }),
        });
        ok = res.status === 201 || res.status === 200;
        await res.arrayBuffer();
      }
      out.ms.push(performance.now() - started);
      if (!ok) out.failures++;
      await new Promise((r) => setTimeout(r, name === 'meta' ? 10 : 25));
    }
  };
  const phase = async (load: boolean) => {
    const meta = { ms: [] as number[], failures: 0 };
    const rating = { ms: [] as number[], failures: 0 };
    probing = true;
    // The posters run in a process of their own: building and sending 8 MB bodies must not delay the probes here.
    const posters = load ? spawn('npx', ['tsx', 'bench/console/run.ts', '--posters', base], { stdio: ['pipe', 'pipe', 'inherit'] }) : null;
    const lines = posters ? createInterface({ input: posters.stdout! })[Symbol.asyncIterator]() : null;
    // Probing starts once the first log is stored (the posters' process is up and posting).
    if (lines) await lines.next();
    const posted = lines ? lines.next().then((line) => JSON.parse(line.value as string) as { stored: number; refused: number; busy: number; closedUnread: number }) : Promise.resolve({ stored: 0, refused: 0, busy: 0, closedUnread: 0 });
    const streams: Array<{ destroy(): void }> = [];
    let events = 0;
    if (load) {
      const signed = await call('/console/api/sign-in', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@lab.example', password: PASSWORD }) });
      const cookie = signed.headers.get('set-cookie')!.split(';')[0]!;
      for (let i = 0; i < CONSOLES; i++) {
        const req = request(`${base}/console/api/jobs/bench/events`, { headers: { cookie } }, (res) => res.on('data', (c: Buffer) => (events += (c.toString().match(/event: stats/g) ?? []).length)));
        req.end();
        streams.push(req);
      }
    }
    const probes = [probe('meta', meta), probe('rating', rating)];
    await new Promise((r) => setTimeout(r, PHASE_S * 1000));
    probing = false;
    posters?.stdin!.end();
    await Promise.all(probes);
    for (const s of streams) s.destroy();
    return { meta: latencies(meta.ms, meta.failures), rating: latencies(rating.ms, rating.failures), logPosts: await posted, logBytes: bigLogBytes(), statsEvents: events };
  };

  const idle = await phase(false);
  const loaded = await phase(true);
  await server.stop();
  await database.drop();
  await rm(dir, { recursive: true, force: true });

  const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
  const result = {
    benchmark: `/meta.json and rating posts while ${POSTERS} sessions post 8 MB session logs and ${CONSOLES} consoles watch, vs idle`,
    date: new Date().toISOString(),
    database: postgres ? 'postgres' : 'sqlite',
    phaseSeconds: PHASE_S,
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
    idle,
    loaded,
    p99Ratio: { meta: ratio(loaded.meta.p99, idle.meta.p99), rating: ratio(loaded.rating.p99, idle.rating.p99) },
    targetP99Ms: TARGET_P99_MS,
    met: loaded.meta.p99 < TARGET_P99_MS && loaded.rating.p99 < TARGET_P99_MS,
  };
  writeBenchResult(`bench/results/console${postgres ? '-postgres' : ''}.json`, result);
  const row = (name: string, l: Latencies) => `| ${name} | ${l.n} | ${l.p50} | ${l.p99} | ${l.max} | ${l.failures} |`;
  console.log(`| probe (${result.database}) | n | p50 ms | p99 ms | max ms | failures |\n|---|---:|---:|---:|---:|---:|`);
  console.log(row('/meta.json idle', idle.meta));
  console.log(row('/meta.json under load', loaded.meta));
  console.log(row('rating idle', idle.rating));
  console.log(row('rating under load', loaded.rating));
  console.log(`\n${(loaded.logBytes / 1e6).toFixed(1)} MB logs: ${loaded.logPosts.stored} stored, ${loaded.logPosts.refused} refused (quota), ${loaded.logPosts.busy} turned away by the large-body budget and sent again; ${loaded.statsEvents} stats events to ${CONSOLES} consoles`);
  console.log(`p99 ratio to idle: /meta.json ${result.p99Ratio.meta}, rating ${result.p99Ratio.rating}; target p99 < ${TARGET_P99_MS} ms: ${result.met ? 'met' : 'NOT met'}`);
}

/** The byte size of one posted log. */
const bigLogBytes = () => {
  const log = bigLog();
  return Buffer.byteLength(log.head) + 43 + Buffer.byteLength(log.tail);
};

/**
 * The posters' process: POSTERS sessions posting 8 MB logs back to back (a new session when one's quota is spent)
 * until stdin closes; prints {stored, refused, busy, closedUnread}.
 */
async function posters(base: string): Promise<void> {
  const log = bigLog();
  const head = Buffer.from(log.head);
  const tail = Buffer.from(log.tail);
  let loading = true;
  process.stdin.resume();
  process.stdin.on('end', () => (loading = false));
  const posted = { stored: 0, refused: 0, busy: 0, closedUnread: 0 };
  const poster = async () => {
    while (loading) {
      const session = (await (await fetch(`${base}/api/getrandomtasks/bench?platform=prolific&PROLIFIC_PID=log${Math.random().toString(36).slice(2)}`)).json()) as { sessionToken: string };
      // One body per session, sent again and again: the posters' own CPU goes to sending, not building.
      const body = Buffer.concat([head, Buffer.from(session.sessionToken), tail]);
      for (let status = 201; loading && status === 201; ) {
        try {
          const res = await fetch(`${base}/api/sessionlogs/`, { method: 'POST', headers: { 'content-type': 'application/json', [SESSION_TOKEN_HEADER]: session.sessionToken }, body });
          status = res.status;
          await res.arrayBuffer();
        } catch {
          // Refused unread (the large-body budget is full: 503, connection closed while the body was sent), which
          // fetch reports as a failure.
          status = 0;
          posted.closedUnread++;
        }
        if (status === 0 || status === 503) {
          // The large-body budget was full: the same log is sent again after its Retry-After, as the page does.
          posted.busy++;
          await new Promise((resolve) => setTimeout(resolve, LARGE_BODY_RETRY_SECONDS * 1000));
          status = 201;
        } else if (status === 201 && posted.stored++ === 0) console.log('{"ready":true}');
        else if (status !== 201) posted.refused++;
      }
    }
  };
  await Promise.all(Array.from({ length: POSTERS }, () => poster()));
  console.log(JSON.stringify(posted));
}

(process.argv[2] === '--posters' ? posters(process.argv[3]!) : main()).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
