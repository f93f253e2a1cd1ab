/**
 * npm run bench:api — POST /api/ratings/ throughput against a bare node:http server, measured in the same run.
 * Every Glimpse request is a new, valid rating (100 sessions x 200 stimuli, a unique Idempotency-Key each), and
 * after each run the committed rows are counted and must equal the 2xx answers.
 * Loopback only, 100 connections, bounded duration. Writes bench/results/api.json and prints a markdown table.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import autocannon from 'autocannon';
import { createPgSchema } from '../../testkit/pg-schema.js';
import { quantile, round1 } from '../shared/measure.js';
import { writeBenchResult } from '../shared/run-stamp.js';

const CONNECTIONS = 100;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const WARMUP_S = 2;
const TARGET_RATIO = 0.5;
const TARGET_P99_MS = 20;
/** The default durability mode: acknowledged after an fdatasync of the WAL off the event loop (storage/wal-sync.ts). */
const TARGET_RUN = 'glimpse sqlite WAL DURABLE (default: NORMAL + async WAL fdatasync)';

interface Prepared {
  url: string;
  sessions: Array<{ id: number; token: string }>;
  stimuli: number[];
}

/** A target process and a line reader on its stdout. */
class Target {
  private lines: Interface;
  private pending: Array<(line: string) => void> = [];
  private constructor(private child: ChildProcessWithoutNullStreams) {
    this.lines = createInterface({ input: child.stdout });
    this.lines.on('line', (line) => this.pending.shift()?.(line));
    child.stderr.pipe(process.stderr);
  }
  static async start(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ target: Target; prepared: Prepared }> {
    // No per-address limit on session creation: every prepared session comes from this one address.
    const child = spawn('npx', ['tsx', 'bench/api/target.ts', ...args], { env: { ...process.env, RATE_LIMIT_SESSIONS_PER_MINUTE: '0', RATE_LIMIT_ANSWERS_PER_MINUTE: '0', ...env }, stdio: 'pipe' });
    const target = new Target(child);
    const ready = await target.nextLine();
    return { target, prepared: JSON.parse(ready) as Prepared };
  }
  private nextLine(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.pending.push(resolve);
      this.child.once('exit', (code) => reject(new Error(`bench target exited (${code})`)));
    });
  }
  /** Ratings committed so far and the CPU time the target has used (after in-flight requests settle). */
  async counters(): Promise<{ ratings: number; cpuUs: number }> {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    this.child.stdin.write('count\n');
    return JSON.parse(await this.nextLine()) as { ratings: number; cpuUs: number };
  }
  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    await exited;
  }
}

const LOGS = JSON.stringify([
  { label: 'A', media: ['bench/red.png'], requestedFrames: 60, shownFrames: 60, onsetMs: 1234.5, offsetMs: 2234.6, droppedFrames: 0, refreshMs: 16.67, endedBy: 'duration' },
  { label: 'gap', media: [], requestedFrames: 60, shownFrames: 60, onsetMs: 2234.6, offsetMs: 3234.7, droppedFrames: 0, refreshMs: 16.67, endedBy: 'duration' },
  { label: 'B', media: ['bench/green.png'], requestedFrames: 60, shownFrames: 60, onsetMs: 3234.7, offsetMs: 4234.8, droppedFrames: 0, refreshMs: 16.67, endedBy: 'duration' },
]);

/** Presentations already answered on each target, so that the next run (warm-up included) answers new ones. */
const answered = new WeakMap<Prepared, number>();

/**
 * Runs autocannon; for Glimpse every request is a new rating: the next presentation not answered yet (session and
 * stimulus change each time) with a new key.
 */
async function load(prepared: Prepared, seconds: number, runId: string, connections = CONNECTIONS) {
  let n = answered.get(prepared) ?? 0;
  let firstFailure = '';
  const glimpse = prepared.sessions.length > 0;
  const capacity = prepared.sessions.length * prepared.stimuli.length;
  const running = autocannon({
    url: prepared.url,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: glimpse ? '/api/ratings/' : '/',
        setupRequest: (request: Record<string, unknown>) => {
          const i = n++;
          answered.set(prepared, n);
          if (glimpse && i >= capacity) throw new Error(`the target has only ${capacity} presentations: raise SESSIONS or STIMULI in target.ts`);
          const session = glimpse ? prepared.sessions[i % prepared.sessions.length] : { id: 1, token: 'x' };
          const stimulus = glimpse ? prepared.stimuli[Math.floor(i / prepared.sessions.length) % prepared.stimuli.length] : 1;
          request.headers = { 'content-type': 'application/json', 'idempotency-key': `${runId.replace(/[^A-Za-z0-9]+/g, '-')}-${i}` };
          request.body = JSON.stringify({ stimuli_id: stimulus, session_id: session.id, session_token: session.token, value: i % 2, nbReplay: 0, logs: LOGS });
          return request;
        },
        onResponse: (status: number, body: string) => {
          if (status >= 300 && !firstFailure) firstFailure = `${status} ${body.slice(0, 300)}`;
        },
      },
    ],
  });
  // Latencies of the 2xx answers (those autocannon's own histogram holds), for the shared quantile (type 7,
  // bench/shared/measure.ts) instead of autocannon's HDR histogram percentiles (whole ms).
  const latencies: number[] = [];
  running.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const result = await running;
  return {
    rps: Math.round(result.requests.average),
    p99Ms: round1(quantile(latencies, 0.99)),
    p50Ms: round1(quantile(latencies, 0.5)),
    total2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    firstFailure,
  };
}

/** Warm-up, then a measured run against a started target; counts the ratings committed meanwhile. */
async function measure(name: string, target: Target, prepared: Prepared) {
  await load(prepared, WARMUP_S, `${name}-warmup`);
  const before = await target.counters();
  const run = await load(prepared, DURATION_S, name);
  const after = await target.counters();
  // CPU time per answered request: less sensitive than req/s to other load on a shared machine.
  const cpuUsPerRequest = Math.round((after.cpuUs - before.cpuUs) / Math.max(1, run.total2xx + run.non2xx));
  return { name, ...run, committed: after.ratings - before.ratings, cpuUsPerRequest };
}

async function measureGlimpse(name: string, databaseUrl: string, env: NodeJS.ProcessEnv = {}) {
  const { target, prepared } = await Target.start(['glimpse', databaseUrl], env);
  try {
    return await measure(name, target, prepared);
  } finally {
    await target.stop();
  }
}

/**
 * Cheap rejection (issue 14): a 12 MB invalid mouse-log body, posted without the session-token header (refused
 * before it is read), then with it (parsed and refused in a worker thread) while /meta.json is polled every 5 ms;
 * the delay is the worst /meta.json answer during the parse minus its median when idle. Best of 3 rounds each.
 */
async function freeze(prepared: Prepared) {
  const session = prepared.sessions[0]!;
  const wrong = (n: number) => Array.from({ length: n }, (_, i) => ({ x: String(i), y: 'y', t: 't', vt: 'v' }));
  const junk = JSON.stringify({ stimuli_id: prepared.stimuli[0], session_id: session.id, session_token: session.token, screening_no: 0, logs: null, mouse_logs: { mediaA: wrong(170_000), mediaB: wrong(170_000) } });
  // A raw socket, not fetch: a server that refuses a body unread answers and closes while the body is still being
  // sent, and fetch then fails (EPIPE) without the answer that came back.
  const post = (headers: Record<string, string>) =>
    new Promise<{ ms: number; status: number }>((resolve, reject) => {
      const { hostname, port } = new URL(prepared.url);
      const started = performance.now();
      const head = [`POST /api/bubblescreenings/ HTTP/1.1`, `host: ${hostname}:${port}`, 'content-type: application/json', `content-length: ${Buffer.byteLength(junk)}`, 'connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
      const socket = connect(Number(port), hostname);
      let answer = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        if (answer === '') answer = chunk;
        const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
        if (status) {
          resolve({ ms: performance.now() - started, status: Number(status) });
          socket.destroy();
        }
      });
      socket.on('error', (error: NodeJS.ErrnoException) => {
        // the refusal's close cutting the upload short is expected; the answer, read above, is what counts
        if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
      });
      // The server closing a connection whose upload it did not read resets it (TCP RST), which can discard its
      // answer before it is read: status 0 then means refused by closing.
      socket.on('close', () => resolve({ ms: performance.now() - started, status: 0 }));
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      // write, not end: a half-closed connection is closed by Node's server without its answer
      socket.write(junk);
    });
  const meta = async () => {
    const started = performance.now();
    await (await fetch(`${prepared.url}/meta.json`)).arrayBuffer();
    return performance.now() - started;
  };
  const idle: number[] = [];
  for (let i = 0; i < 50; i++) idle.push(await meta());
  const idleMedian = quantile(idle, 0.5);
  let withoutToken = { ms: Infinity, status: 0 };
  for (let i = 0; i < 3; i++) {
    const r = await post({});
    if (r.ms < withoutToken.ms) withoutToken = r;
  }
  let withToken = { ms: Infinity, status: 0, worstMetaMs: Infinity, metaProbes: 0 };
  for (let i = 0; i < 3; i++) {
    let done = false;
    let worst = 0;
    let probes = 0;
    const probe = (async () => {
      while (!done) {
        worst = Math.max(worst, await meta());
        probes++;
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const r = await post({ 'glimpse-session-token': session.token });
    done = true;
    await probe;
    if (worst < withToken.worstMetaMs) withToken = { ...r, worstMetaMs: worst, metaProbes: probes };
  }
  const round = (x: number) => Number(x.toFixed(1));
  return {
    bodyBytes: junk.length,
    // status 0: the connection was closed before its answer could be read (a refusal too).
    withoutToken: { status: withoutToken.status, ms: round(withoutToken.ms), targetMs: 200, met: withoutToken.ms < 200 && (withoutToken.status === 401 || withoutToken.status === 0) },
    withToken: { status: withToken.status, ms: round(withToken.ms) },
    metaIdleMedianMs: round(idleMedian),
    metaWorstDuringParseMs: round(withToken.worstMetaMs),
    metaProbesDuringParse: withToken.metaProbes,
    metaDelayMs: round(withToken.worstMetaMs - idleMedian),
    delayTargetMs: 50,
    met: withoutToken.ms < 200 && withToken.worstMetaMs - idleMedian < 50,
  };
}

/**
 * Several nodes on one PostgreSQL database (docs/data-safety.md "Deployment on several nodes"): `nodes` Glimpse
 * processes, the first importing the study, each with its own sessions; the same 100 connections spread over them.
 */
async function measureNodes(name: string, databaseUrl: string, nodes: number) {
  const first = await Target.start(['glimpse', databaseUrl]);
  const others = [];
  for (let node = 1; node < nodes; node++) others.push(await Target.start(['join', databaseUrl, String(node)]));
  const all = [first, ...others];
  const share = (i: number) => Math.floor(CONNECTIONS / nodes) + (i < CONNECTIONS % nodes ? 1 : 0);
  try {
    await Promise.all(all.map((t, i) => load(t.prepared, WARMUP_S, `${name}-warmup-${i}`, share(i))));
    const before = await first.target.counters();
    const runs = await Promise.all(all.map((t, i) => load(t.prepared, DURATION_S, `${name}-${i}`, share(i))));
    const after = await first.target.counters();
    const total2xx = runs.reduce((n, r) => n + r.total2xx, 0);
    const non2xx = runs.reduce((n, r) => n + r.non2xx, 0);
    const errors = runs.reduce((n, r) => n + r.errors, 0);
    const committed = after.ratings - before.ratings;
    return {
      name,
      nodes,
      rps: runs.reduce((n, r) => n + r.rps, 0),
      perNodeRps: runs.map((r) => r.rps),
      p50Ms: Math.max(...runs.map((r) => r.p50Ms)),
      p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
      total2xx,
      non2xx,
      errors,
      committed,
      everyRatingCommitted: non2xx === 0 && errors === 0 && committed >= total2xx && committed <= total2xx + CONNECTIONS,
      firstFailure: runs.find((r) => r.firstFailure)?.firstFailure ?? '',
    };
  } finally {
    for (const t of all) await t.target.stop();
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'glimpse-bench-db-'));
  const pg = await createPgSchema('glimpse_bench');
  const pgOneNode = await createPgSchema('glimpse_bench_one');
  const pgNodes = await createPgSchema('glimpse_bench_nodes');
  const bareServer = await Target.start(['bare']);
  // Other work on the machine skews req/s: the load average is recorded with the figures, and each Glimpse run is
  // compared with a bare run made just before it.
  const loadBefore = loadavg()[0];
  try {
    // Cheap rejection of a large invalid body, on the default mode: first, as it is quick.
    const freezeTarget = await Target.start(['glimpse', join(dir, 'freeze.sqlite')]);
    const freezeFigure = await freeze(freezeTarget.prepared).finally(() => freezeTarget.target.stop());
    console.log(`cheap rejection: ${JSON.stringify(freezeFigure)}`);
    // The target applies to the default mode (DURABLE); the others are measured for comparison.
    const configs: Array<[string, string, NodeJS.ProcessEnv]> = [
      [TARGET_RUN, join(dir, 'durable.sqlite'), { SQLITE_SYNCHRONOUS: 'DURABLE' }],
      ['glimpse sqlite WAL FULL (fsync in COMMIT)', join(dir, 'full.sqlite'), { SQLITE_SYNCHRONOUS: 'FULL' }],
      ['glimpse sqlite WAL NORMAL (no sync before ack)', join(dir, 'normal.sqlite'), { SQLITE_SYNCHRONOUS: 'NORMAL' }],
      ['glimpse postgresql', pg.url, {}],
    ];
    type Run = Awaited<ReturnType<typeof measure>>;
    const bareRuns: Run[] = [];
    const rows: Array<Run & { bareRps: number; ratio: number; everyRatingCommitted: boolean }> = [];
    for (const [name, url, env] of configs) {
      const bare = await measure('bare node:http', bareServer.target, bareServer.prepared);
      bareRuns.push(bare);
      const r = await measureGlimpse(name, url, env);
      rows.push({
        ...r,
        bareRps: bare.rps,
        ratio: Number((r.rps / bare.rps).toFixed(3)),
        // Requests in flight when a run stops are committed but not counted as answered: at most one per connection.
        everyRatingCommitted: r.non2xx === 0 && r.errors === 0 && r.committed >= r.total2xx && r.committed <= r.total2xx + CONNECTIONS,
      });
    }
    // Three nodes on one PostgreSQL database, against one node measured just before.
    const oneNode = await measureGlimpse('glimpse postgresql, 1 node (again, for the 3-node ratio)', pgOneNode.url);
    const threeNodes = await measureNodes('glimpse postgresql, 3 nodes', pgNodes.url, 3);
    const meets = (r: (typeof rows)[number]): boolean => r.ratio >= TARGET_RATIO && r.p99Ms < TARGET_P99_MS && r.everyRatingCommitted;
    const report = {
      benchmark: 'POST /api/ratings/ vs bare node:http 200',
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, loadAverage1m: { before: loadBefore, after: loadavg()[0] } },
      connections: CONNECTIONS,
      durationS: DURATION_S,
      target: { ratio: TARGET_RATIO, p99Ms: TARGET_P99_MS, on: TARGET_RUN },
      bare: bareRuns,
      runs: rows.map((r) => (r.name === TARGET_RUN ? { ...r, meetsTarget: meets(r) } : r)),
      nodes: { oneNode, threeNodes, ratio: Number((threeNodes.rps / oneNode.rps).toFixed(3)) },
      freeze: freezeFigure,
    };
    writeBenchResult('bench/results/api.json', report);

    const line = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
    const load = report.machine.loadAverage1m;
    console.log(`\n${DURATION_S} s per run, ${CONNECTIONS} connections, ${report.machine.cpus} CPUs (${report.machine.model}), ${process.version}, load average ${load.before.toFixed(1)} -> ${load.after.toFixed(1)}\n`);
    console.log(line(['server', 'req/s', 'bare req/s (run just before)', 'ratio to bare', 'p50 ms', 'p99 ms', 'server CPU µs/req (bare)', 'non-2xx', 'ratings committed / 2xx', 'target']));
    console.log(line(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---', '---']));
    rows.forEach((r, i) => {
      if (r.firstFailure) console.log(`first failure of ${r.name}: ${r.firstFailure}`);
      const committed = `${r.committed}/${r.total2xx}${r.everyRatingCommitted ? '' : ' MISMATCH'}`;
      const cpu = `${r.cpuUsPerRequest} (${bareRuns[i].cpuUsPerRequest})`;
      const target = r.name === TARGET_RUN ? (meets(r) ? 'met' : 'not met') : '';
      console.log(line([r.name, r.rps, r.bareRps, r.ratio.toFixed(3), r.p50Ms, r.p99Ms, cpu, r.non2xx, committed, target]));
    });
    console.log(`\nTarget on the default mode (DURABLE): ratio >= ${TARGET_RATIO}, p99 < ${TARGET_P99_MS} ms, every acknowledged rating committed.`);
    const nodes = report.nodes;
    console.log(`\nPostgreSQL, 1 node: ${nodes.oneNode.rps} ratings/s (p99 ${nodes.oneNode.p99Ms} ms); 3 nodes: ${nodes.threeNodes.rps} ratings/s (${nodes.threeNodes.perNodeRps.join(' + ')}; p99 ${nodes.threeNodes.p99Ms} ms), ratio ${nodes.ratio}; committed ${nodes.threeNodes.committed} / 2xx ${nodes.threeNodes.total2xx}${nodes.threeNodes.everyRatingCommitted ? '' : ' MISMATCH'}`);
    if (nodes.threeNodes.firstFailure) console.log(`first failure of 3 nodes: ${nodes.threeNodes.firstFailure}`);
    const f = report.freeze;
    console.log(`\n${(f.bodyBytes / 1e6).toFixed(1)} MB invalid body: without the token header ${f.withoutToken.status} in ${f.withoutToken.ms} ms (target < 200); with it ${f.withToken.status} in ${f.withToken.ms} ms while /meta.json took at worst ${f.metaWorstDuringParseMs} ms (idle median ${f.metaIdleMedianMs} ms: delay ${f.metaDelayMs} ms, target < 50, ${f.metaProbesDuringParse} probes)`);
    console.log('Written to bench/results/api.json');
  } finally {
    await bareServer.target.stop();
    await pg.drop();
    await pgOneNode.drop();
    await pgNodes.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
