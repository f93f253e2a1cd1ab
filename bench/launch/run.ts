/**
 * npm run bench:launch — launch day (issue 26, docs/benchmarks.md). Participants arrive as a Poisson process and
 * each runs the whole journey as the page does (bench/launch/participant.ts) against N server processes
 * (testkit/node-server.ts: one on SQLite, or N on one PostgreSQL, each participant on a node the generator picks),
 * while two consoles watch the job's live statistics and its owner lists the participants every 10 s. Prints and
 * writes (bench/results/launch-{db}-{nodes}n-{arrivals}.json): completions, errors by status, every acknowledged
 * answer looked up in the database, per-route p50/p95/p99, the /meta.json probe of each node's event loop, the
 * consoles' lag behind the completions, and CPU per participant for each node and for PostgreSQL's backends.
 *
 *   npm run bench:launch -- --arrivals 500 --over 120 [--db postgres --nodes 2] [--think 300] [--bubble 0.1] [--cpu-prof]
 *   npm run bench:launch -- --synthetic [--postgres]     # one more completion on 100 vs 10,000 sessions
 *
 * Not in CI. Needs the built web app (npx vite build): its files are what participants load.
 */
import { readFileSync, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import sharp from 'sharp';
import { createRandom } from '../../src/analysis/random.js';
import { hashPassword } from '../../src/server/console/passwords.js';
import { openStorage } from '../../src/server/storage/open.js';
import { createUser } from '../../src/server/storage/users.js';
import type { Storage } from '../../src/server/storage/types.js';
import { jobFields } from '../../testkit/job-fields.js';
import { benchDatabase } from '../shared/database.js';
import { countByStatus, quantile, round1, send, sleep, summary, type Summary } from '../shared/measure.js';
import { runJourney, type Outcome } from './participant.js';
import { busiestProfile } from './profile-summary.js';
import { syntheticStudy } from './synthetic.js';
import { writeBenchResult } from '../shared/run-stamp.js';
import { importBenchStudies } from '../shared/studies.js';
import { startNode, stopNode, type Node } from '../shared/nodes.js';

const { values: args } = parseArgs({
  options: {
    synthetic: { type: 'boolean', default: false },
    postgres: { type: 'boolean', default: false },
    arrivals: { type: 'string', default: '500' },
    over: { type: 'string', default: '120' },
    think: { type: 'string', default: '300' },
    bubble: { type: 'string', default: '0.1' },
    nodes: { type: 'string', default: '1' },
    db: { type: 'string', default: 'sqlite' },
    consoles: { type: 'string', default: '2' },
    'cpu-prof': { type: 'boolean', default: false },
    /** --synthetic: the two study sizes compared. */
    sizes: { type: 'string', default: '100,10000' },
  },
});

const PASSWORD = 'launch bench password';
const OWNER = 'owner@lab.example';
const TICKS_PER_S = 100;
const PLAYLISTS = 20;
const PER_PLAYLIST = 8;

/** The chunks a participant's page loads after the entry files (by name; the hash changes with each build). */
const LAZY_CHUNKS = ['EligibilityScreen', 'InformationSheet', 'ConsentForm', 'Instructions', 'Stage', 'ChoiceResponse'];

/** CPU seconds a process has used (user + system), from /proc. */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  } catch {
    return null;
  }
}

/** The machine's CPU ticks so far (/proc/stat): all of them, the busy ones, and those stolen by the hypervisor. */
function hostTicks(): { total: number; busy: number; steal: number } {
  const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number) as number[];
  const busy = user! + nice! + system! + irq! + softirq!;
  return { total: busy + idle! + iowait! + steal!, busy, steal: steal! };
}

/**
 * How fast this host runs the server's kind of work, measured before the load: the median of 5 times of one fixed
 * task (JSON of 2,000 ratings written and read 20 times). Hosts of the same nominal size differ by up to 2× here,
 * so launch figures from two days are compared through it.
 */
function calibrationMs(): number {
  const ratings = Array.from({ length: 2000 }, (_, i) => ({ stimuli_id: i, session_id: 7, rating: (i % 5) + 1, timing: { shownAt: i * 16.7, frames: 120, refreshHz: 60 } }));
  const times = Array.from({ length: 5 }, () => {
    const t = performance.now();
    for (let r = 0; r < 20; r++) JSON.parse(JSON.stringify(ratings));
    return performance.now() - t;
  });
  return round1(quantile(times, 0.5));
}

/** Test media (JPEG, 960×540, ~50–90 KB each), an ACR study and a bubble study over them. */
async function prepareStudies(dir: string, databaseUrl: string): Promise<string> {
  const studyDir = join(dir, 'study');
  await mkdir(join(studyDir, 'media'), { recursive: true });
  const files = Array.from({ length: 16 }, (_, i) => `img${String(i).padStart(2, '0')}.jpg`);
  for (const [i, file] of files.entries()) {
    const noise = Buffer.alloc(960 * 540 * 3);
    for (let p = 0; p < noise.length; p++) noise[p] = (p * (i + 7) + ((p / 2880) | 0) * 31) & 0xff;
    await sharp(noise, { raw: { width: 960, height: 540, channels: 3 } }).jpeg({ quality: 40 + i * 3 }).toFile(join(studyDir, 'media', file));
  }
  const random = createRandom(26);
  const pick = () => files[random.int(files.length)]!;
  const side = (source: string) => ({ source, height: 540, width: 960, blur: 4, radius: 6 });
  const studies = [
    { id: 'launch', media: 'media', job: jobFields('absolute_category_rating'), playlists: Array.from({ length: PLAYLISTS }, () => ({ stimuli: Array.from({ length: PER_PLAYLIST }, () => ({ source: pick() })) })) },
    { id: 'launch-bubble', media: 'media', job: jobFields('bubble'), playlists: Array.from({ length: 4 }, () => ({ stimuli: Array.from({ length: 4 }, () => ({ sourceA: side(pick()), sourceB: side(pick()) })) })) },
  ];
  const mediaDir = join(dir, 'media');
  const storage = await openStorage({ databaseUrl });
  try {
    await importBenchStudies(storage, studyDir, mediaDir, studies);
    await createUser(storage, OWNER, await hashPassword(PASSWORD));
  } finally {
    await storage.close();
  }
  return mediaDir;
}

/** What a participant's page loads: the page, the entry files index.html names, then the journey's lazy chunks. */
async function pageFiles(webDir: string): Promise<string[]> {
  const html = await readFile(join(webDir, 'index.html'), 'utf8');
  const entry = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  const assets = (await readdir(join(webDir, 'assets'))).filter((f) => /\.(js|css)$/.test(f));
  const lazy = LAZY_CHUNKS.flatMap((name) => assets.filter((f) => f.startsWith(`${name}-`)).map((f) => `/assets/${f}`));
  return ['/', ...new Set([...entry, ...lazy])];
}

/** A console watching the job's live statistics: the time of each event and the completed count it shows. */
function watchConsole(base: string, cookie: string, jobId: string, seen: Array<{ at: number; completed: number }>, startedAt: number) {
  let buffer = '';
  const req = request(`${base}/console/api/jobs/${jobId}/events`, { headers: { cookie } }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event.match(/^event: stats\ndata: (.*)$/m)?.[1];
        if (data) seen.push({ at: performance.now() - startedAt, completed: (JSON.parse(data) as { sessions: { completed: number } }).sessions.completed });
      }
    });
  });
  req.end();
  return req;
}

/** For each completion (in order), how long until a console's event showed it. */
function consoleLag(completions: number[], events: Array<{ at: number; completed: number }>): number[] {
  const sorted = [...completions].sort((a, b) => a - b);
  const lags: number[] = [];
  let shown = 0;
  for (const e of [...events].sort((a, b) => a.at - b.at)) {
    for (; shown < Math.min(e.completed, sorted.length); shown++) lags.push(e.at - sorted[shown]!);
  }
  return lags;
}

async function lostAnswers(storage: Storage, outcomes: Outcome[]) {
  const ids = (pick: (o: Outcome) => number[]) => outcomes.flatMap(pick);
  const missing = async (table: 'ratings' | 'screenings' | 'session_logs', wanted: number[]) => {
    const found = new Set<number>();
    for (let i = 0; i < wanted.length; i += 5000) {
      for (const r of await storage.db.selectFrom(table).select('id').where('id', 'in', wanted.slice(i, i + 5000)).execute()) found.add(r.id);
    }
    return { acknowledged: wanted.length, found: found.size };
  };
  return {
    ratings: await missing('ratings', ids((o) => o.acknowledged.ratings)),
    screenings: await missing('screenings', ids((o) => o.acknowledged.screenings)),
    sessionLogs: await missing('session_logs', ids((o) => o.acknowledged.sessionLogs)),
  };
}

/** PostgreSQL backends of this run's nodes (application_name) and the CPU each has used, sampled every second. */
function watchPostgres(storage: Storage | null, appName: string) {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  let running = true;
  const done = (async () => {
    while (running && storage) {
      const rows = await storage.db.selectFrom('pg_stat_activity' as never).select(['pid' as never]).where('application_name' as never, '=', appName as never).execute().catch(() => []);
      for (const { pid } of rows as Array<{ pid: number }>) {
        const cpu = cpuSeconds(pid);
        if (cpu === null) continue;
        if (!first.has(pid)) first.set(pid, cpu);
        last.set(pid, cpu);
      }
      await sleep(1000);
    }
  })();
  return async () => {
    running = false;
    await done;
    // backends: how many the run's connections used (a pool that closes idle connections opens new ones).
    return { cpu: [...last].reduce((s, [pid, cpu]) => s + cpu - first.get(pid)!, 0), backends: first.size };
  };
}

/**
 * PostgreSQL's statements by their total time during the run (time waiting for a lock included), when the server
 * loads pg_stat_statements (`shared_preload_libraries`; docs/benchmarks.md "bench:launch") and the extension exists in
 * the database; null otherwise. `start` resets the counts (the whole server's) before the arrivals.
 */
function statementProfile(storage: Storage | null) {
  const view = sql`public.pg_stat_statements`;
  const available = (async () => {
    if (!storage) return false;
    try {
      await sql`select public.pg_stat_statements_reset()`.execute(storage.db);
      return true;
    } catch {
      return false;
    }
  })();
  return async () => {
    if (!storage || !(await available)) return null;
    const { rows } = await sql<{ query: string; calls: string; total: number; plan: number }>`
      select query, calls, total_exec_time as total, total_plan_time as plan from ${view}
      where dbid = (select oid from pg_database where datname = current_database()) order by total_exec_time desc`.execute(storage.db);
    const all = rows.reduce((sum, r) => sum + Number(r.total), 0);
    return {
      totalMs: Math.round(all),
      // Planning is counted only where pg_stat_statements.track_planning is on (0 otherwise).
      planningMs: Math.round(rows.reduce((sum, r) => sum + Number(r.plan), 0)),
      calls: rows.reduce((sum, r) => sum + Number(r.calls), 0),
      top: rows.slice(0, 12).map((r) => ({
        statement: r.query.replace(/\s+/g, ' ').slice(0, 140),
        calls: Number(r.calls),
        totalMs: Math.round(Number(r.total)),
        meanMs: Math.round((Number(r.total) / Number(r.calls)) * 1000) / 1000,
        planMs: Math.round(Number(r.plan)),
        share: Math.round((Number(r.total) / all) * 1000) / 1000,
      })),
    };
  };
}

async function load(): Promise<void> {
  const arrivals = Number(args.arrivals);
  const overS = Number(args.over);
  const nodesWanted = Number(args.nodes);
  const dialect = args.db === 'postgres' ? 'postgres' : 'sqlite';
  if (dialect === 'sqlite' && nodesWanted !== 1) throw new Error('SQLite runs on one node (--db postgres for several)');
  const webDir = resolve('dist/web');
  if (!existsSync(join(webDir, 'index.html'))) throw new Error('no dist/web/index.html: run npx vite build first');
  const dir = await mkdtemp(join(tmpdir(), 'glimpse-bench-launch-'));
  const appName = `glimpse_launch_${process.pid}`;
  const database = await benchDatabase(dialect, dir, 'launch');
  const databaseUrl = dialect === 'postgres' ? `${database.url}&application_name=${appName}` : database.url;
  const mediaDir = await prepareStudies(dir, databaseUrl);
  const profileDir = resolve(`bench/results/profiles/launch-${dialect}-${nodesWanted}n-${arrivals}`);
  if (args['cpu-prof']) await rm(profileDir, { recursive: true, force: true }).then(() => mkdir(profileDir, { recursive: true }));
  const nodes: Node[] = [];
  for (let i = 0; i < nodesWanted; i++) {
    const nodeArgs = args['cpu-prof'] && i === 0 ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    nodes.push(await startNode({ DATABASE_URL: databaseUrl, MEDIA_DIR: mediaDir, WEB_DIR: webDir, RATE_LIMIT_SESSIONS_PER_MINUTE: '0', RATE_LIMIT_ANSWERS_PER_MINUTE: '0' }, nodeArgs));
  }
  // The generator's own connection stays out of the CPU count (no application_name).
  const observer = await openStorage({ databaseUrl: database.url, migrate: false });
  const files = await pageFiles(webDir);
  const startedAt = performance.now();
  const random = createRandom(2026);

  // Consoles and the owner's participant list, on the first node.
  const signIn = await send(`${nodes[0]!.url}/console/api/sign-in`, { method: 'POST', body: { email: OWNER, password: PASSWORD } });
  const cookie = signIn.cookie!;
  const events: Array<{ at: number; completed: number }> = [];
  const streams = Array.from({ length: Number(args.consoles) }, () => watchConsole(nodes[0]!.url, cookie, 'launch', events, startedAt));
  let running = true;
  const listings: number[] = [];
  const owner = (async () => {
    while (running) {
      const a = await send(`${nodes[0]!.url}/console/api/jobs/launch/participants?page=1&pageSize=50`, { headers: { cookie } });
      listings.push(a.ms);
      await sleep(10_000);
    }
  })();
  // The event-loop probe: /meta.json on every node, 5 times a second.
  const probes = nodes.map(() => [] as number[]);
  const probing = nodes.map(async (n, i) => {
    while (running) {
      probes[i]!.push((await send(`${n.url}/meta.json`)).ms);
      await sleep(200);
    }
  });
  const calibration = calibrationMs();
  const hostBefore = hostTicks();
  const cpuBefore = nodes.map((n) => cpuSeconds(n.pid)!);
  const generatorBefore = process.cpuUsage();
  const postgresCpu = watchPostgres(dialect === 'postgres' ? observer : null, appName);
  const statements = statementProfile(dialect === 'postgres' ? observer : null);

  // Poisson arrivals over the window; each participant on a node picked at random, 1 in 1/bubble on the bubble job.
  const journeys: Array<Promise<Outcome>> = [];
  const bubbleShare = Number(args.bubble);
  const meanGapMs = (overS * 1000) / arrivals;
  let nextAt = 0;
  for (let p = 0; p < arrivals; p++) {
    nextAt += -Math.log(1 - random.next()) * meanGapMs;
    const wait = nextAt - (performance.now() - startedAt);
    if (wait > 0) await sleep(wait);
    const bubble = random.next() < bubbleShare;
    const node = nodes[random.int(nodes.length)]!;
    journeys.push(
      runJourney({ base: node.url, jobId: bubble ? 'launch-bubble' : 'launch', playlistPath: bubble ? 'getbubble' : 'getacr', pid: `L${p}`, bubble, thinkMs: Number(args.think), pageFiles: files, random: () => random.next(), startedAt }),
    );
  }
  const outcomes = await Promise.all(journeys);
  const elapsedS = (performance.now() - startedAt) / 1000;
  // One more live interval so that the consoles can show the last completions.
  await sleep(2500);
  running = false;
  const cpuAfter = nodes.map((n) => cpuSeconds(n.pid)!);
  const hostAfter = hostTicks();
  const generatorCpu = process.cpuUsage(generatorBefore);
  const pgCpu = await postgresCpu();
  const postgresStatements = await statements();
  for (const s of streams) s.destroy();
  await Promise.all([owner, ...probing]);
  const lost = await lostAnswers(observer, outcomes);
  await observer.close();
  for (const n of nodes) await stopNode(n);
  await database.drop();
  await rm(dir, { recursive: true, force: true });

  const requests = outcomes.flatMap((o) => o.requests);
  const routes = [...new Set(requests.map((r) => r.route))];
  const completed = outcomes.filter((o) => o.completedAt !== null);
  const share = (part: number, whole: number) => Math.round((part / Math.max(1, whole)) * 1000) / 1000;
  const perParticipantMs = (cpu: number) => Math.round((cpu / Math.max(1, completed.length)) * 1000 * 10) / 10;
  const result = {
    benchmark: 'launch day: Poisson arrivals running the whole journey, two consoles watching, the owner listing participants',
    date: new Date().toISOString(),
    settings: { arrivals, overS, thinkMs: Number(args.think), bubbleShare, nodes: nodesWanted, database: dialect, consoles: Number(args.consoles) },
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
    // The host: its speed before the load (calibrationMs, lower is faster), and how busy its cores were during it.
    host: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      calibrationMs: calibration,
      busyShare: share(hostAfter.busy - hostBefore.busy, hostAfter.total - hostBefore.total),
      stealShare: share(hostAfter.steal - hostBefore.steal, hostAfter.total - hostBefore.total),
    },
    elapsedS: Math.round(elapsedS),
    completions: completed.length,
    errorsByStatus: countByStatus(requests.filter((r) => r.status < 200 || r.status >= 400)),
    lost,
    routes: Object.fromEntries(routes.map((route) => [route, summary(requests.filter((r) => r.route === route).map((r) => r.ms))])) as Record<string, Summary>,
    eventLoopProbe: probes.map((p) => summary(p)),
    // The consoles watch the ACR job: its completions only.
    consoleLagMs: summary(consoleLag(completed.filter((o) => o.jobId === 'launch').map((o) => o.completedAt!), events)),
    ownerListing: summary(listings),
    cpuPerParticipantMs: { nodes: nodes.map((_, i) => perParticipantMs(cpuAfter[i]! - cpuBefore[i]!)), postgres: dialect === 'postgres' ? perParticipantMs(pgCpu.cpu) : null, generator: perParticipantMs((generatorCpu.user + generatorCpu.system) / 1e6) },
    // The first node's profile (--cpu-prof): where its time went, by function (self time).
    profile: args['cpu-prof'] ? await busiestProfile(profileDir) : null,
    postgresBackends: dialect === 'postgres' ? pgCpu.backends : null,
    postgresStatements,
  };
  writeBenchResult(`bench/results/launch-${dialect}-${nodesWanted}n-${arrivals}.json`, result);
  console.log(JSON.stringify({ ...result, routes: undefined }, null, 1));
  console.log('| route | n | p50 ms | p95 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|---:|');
  for (const [route, s] of Object.entries(result.routes)) console.log(`| ${route} | ${s.n} | ${s.p50} | ${s.p95} | ${s.p99} | ${s.max} |`);
}

async function synthetic(): Promise<void> {
  const sizes = args.sizes.split(',').map(Number) as [number, number];
  const results = [await syntheticStudy('sqlite', sizes)];
  if (args.postgres) results.push(await syntheticStudy('postgres', sizes));
  const out = { benchmark: 'one more completion (the code: completion and on-line verdict) on a study of 100 vs 10,000 sessions', date: new Date().toISOString(), loadAverage: loadavg().map((l) => Math.round(l * 100) / 100), results, target: 1.5 };
  writeBenchResult('bench/results/launch-synthetic.json', out);
  console.log('| database | sessions | code p50 ms | code p95 ms | former aggregate p50 ms | live statistics p50 ms |\n|---|---:|---:|---:|---:|---:|');
  for (const r of results) for (const s of [r.small, r.large]) console.log(`| ${r.dialect} | ${s.sessions} | ${s.code.p50} | ${s.code.p95} | ${s.formerAggregate.p50} | ${s.liveStatistics.p50} |`);
  for (const r of results) console.log(`${r.dialect}: ratio ${r.ratio} (target ≤ ${out.target}: ${r.ratio <= out.target ? 'met' : 'NOT met'})`);
  console.log(`load average ${out.loadAverage.join(' ')}`);
}

await (args.synthetic ? synthetic() : load());
