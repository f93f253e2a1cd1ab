/**
 * `npm run bench:adaptive-server -- [--db postgres --nodes 2] [--participants 60] [--over 30] [--think 20] [--seeds 20]`
 * (issue 38 item 5, docs/adaptive.md): the adaptive pair-comparison job through the real server, against the same
 * job simulated.
 *
 * - The crowd of bench:adaptive (model.ts), "wide" ladder (steps U(0, 1.5) JOD): 10 contents × 8 conditions, one true
 *   scale; each participant a Thurstone observer, or, with probability 10 %, a random clicker for the whole session.
 * - Through the server: server processes (testkit/node-server.ts: one on SQLite, or N on one PostgreSQL), an `asap`
 *   job with a budget of 70 comparisons a participant (one batch of 7 per content on average); participants arrive
 *   as a Poisson process over `--over` seconds, each on a node in turn, and run bench:launch's journey
 *   (launch/participant.ts: the job, the browser check, the visit, the playlist, every media file, each answer after a
 *   think time, the logs and the code), answering as their observer. Then the scale of the stored answers (included
 *   sessions, pwcmp Thurstone) against the truth.
 * - Baseline in the same run: the same arrivals on a fixed-design job of the same size (20 playlists of 70 pairs
 *   drawn at random): the arrival's and the code's p99 with and without ASAP at arrival.
 * - Simulation: the same number of participants and budget, the same planner (analysis/asap/plan.ts), answers judged
 *   in arrival order with the concurrency the server run had (each arrival sees as pending the comparisons of the
 *   participants who arrived within the mean session time before it), over `--seeds` crowds on the same truth; the
 *   server's RMSE should lie within the simulation's 95 % band (2.5 %–97.5 % of the seeds). The full design at the
 *   same budget (each participant 7 pairs of each content, in a full design's cyclic order) is simulated too.
 * Writes bench/results/adaptive-server-{db}-{nodes}n.json. Not in CI.
 */
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { planComparisons, orientComparisons } from '../../src/analysis/asap/plan.js';
import { createRandom, shuffled } from '../../src/analysis/random.js';
import { openStorage } from '../../src/server/storage/open.js';
import type { DialectName } from '../../src/server/storage/types.js';
import { jobFields } from '../../testkit/job-fields.js';
import { benchDatabase } from '../shared/database.js';
import { quantile, sleep, summary } from '../shared/measure.js';
import { startNode, stopNode, type Node } from '../shared/nodes.js';
import { writeBenchResult } from '../shared/run-stamp.js';
import { importBenchStudies } from '../shared/studies.js';
import { runJourney, type Outcome } from '../launch/participant.js';
import { CLICKER_SHARE, CONDITIONS, CONTENTS, prefers, scaleAccuracy, truthOf } from './model.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    nodes: { type: 'string', default: '1' },
    participants: { type: 'string', default: '60' },
    over: { type: 'string', default: '30' },
    think: { type: 'string', default: '20' },
    seeds: { type: 'string', default: '20' },
  },
});
const DIALECT = args.db as DialectName;
const NODES = Number(args.nodes);
const PARTICIPANTS = Number(args.participants);
const OVER_S = Number(args.over);
const THINK_MS = Number(args.think);
const SEEDS = Number(args.seeds);
const BUDGET = CONTENTS * (CONDITIONS - 1);
const STEP = 1.5;
const TRUTH_SEED = 1001;
/** Issue 26's launch targets: every participant route's p99 (ms) on SQLite with one node, on PostgreSQL with two. */
const ROUTE_P99_TARGET_MS = DIALECT === 'sqlite' ? 200 : 300;

const truth = truthOf(createRandom(TRUTH_SEED), STEP);
const fileOf = (c: number, k: number) => `c${c}_q${k}.png`;
/** The content and condition of a served media name (`{jobId}/c{c}_q{k}.png`). */
const conditionOf = (source: string) => {
  const m = /c(\d+)_q(\d+)\.png$/.exec(source)!;
  return { content: Number(m[1]), condition: Number(m[2]) };
};

async function prepare(dir: string, databaseUrl: string): Promise<string> {
  const studyDir = join(dir, 'study');
  await mkdir(join(studyDir, 'media'), { recursive: true });
  const mediaAttributes: Record<string, { content: string; condition: string }> = {};
  for (let c = 0; c < CONTENTS; c++) {
    for (let k = 0; k < CONDITIONS; k++) {
      await sharp({ create: { width: 32, height: 24, channels: 3, background: { r: 20 * c, g: 30 * k, b: 90 } } }).png().toFile(join(studyDir, 'media', fileOf(c, k)));
      mediaAttributes[fileOf(c, k)] = { content: `content${c}`, condition: `q${k}` };
    }
  }
  const contents = Array.from({ length: CONTENTS }, (_, c) => ({ conditions: Array.from({ length: CONDITIONS }, (_, k) => fileOf(c, k)) }));
  const random = createRandom(7);
  const randomPair = () => {
    const c = random.int(CONTENTS);
    const i = random.int(CONDITIONS);
    const j = (i + 1 + random.int(CONDITIONS - 1)) % CONDITIONS;
    return { sourceA: fileOf(c, i), sourceB: fileOf(c, j) };
  };
  const job = { ...jobFields('pair_comparison'), displayMs: 300 };
  const studies = [
    { id: 'adaptive', media: 'media', job, mediaAttributes, design: { mode: 'asap', comparisonsPerParticipant: BUDGET, contents }, playlists: [{ stimuli: [] }] },
    { id: 'fixed', media: 'media', job, mediaAttributes, playlists: Array.from({ length: 20 }, () => ({ stimuli: Array.from({ length: BUDGET }, randomPair) })) },
  ];
  const mediaDir = join(dir, 'media');
  const storage = await openStorage({ databaseUrl });
  try {
    await importBenchStudies(storage, studyDir, mediaDir, studies);
  } finally {
    await storage.close();
  }
  return mediaDir;
}

/** The same Poisson arrivals (times and crowd) for both jobs. */
function arrivals(): Array<{ at: number; clicker: boolean; seed: number }> {
  const random = createRandom(99);
  let at = 0;
  return Array.from({ length: PARTICIPANTS }, (_, k) => {
    at += (-Math.log(1 - random.next()) * OVER_S * 1000) / PARTICIPANTS;
    return { at, clicker: random.next() < CLICKER_SHARE, seed: 5000 + k };
  });
}

async function runCrowd(nodes: Node[], jobId: string): Promise<Outcome[]> {
  const startedAt = performance.now();
  return Promise.all(
    arrivals().map(async (a, k) => {
      await sleep(a.at);
      const random = createRandom(a.seed);
      return runJourney({
        base: nodes[k % nodes.length]!.url,
        jobId,
        playlistPath: 'getrandomtasks',
        pid: `${jobId}-p${k}`,
        bubble: false,
        thinkMs: THINK_MS,
        pageFiles: [],
        random: () => random.next(),
        startedAt,
        answer: (s) => {
          const first = conditionOf(s.sourceA as string);
          const second = conditionOf(s.sourceB as string);
          return prefers(truth[first.content]!, first.condition, second.condition, random, a.clicker) ? 0 : 1;
        },
      });
    }),
  );
}

/** The job's included comparisons, per content (row-major win counts). */
async function storedCounts(databaseUrl: string, jobId: string): Promise<Float64Array[]> {
  const storage = await openStorage({ databaseUrl });
  try {
    const rows = await storage.db
      .selectFrom('ratings as r')
      .innerJoin('sessions as s', 's.id', 'r.session_id')
      .innerJoin('session_verdicts as v', 'v.session_id', 's.id')
      .innerJoin('stimuli as st', 'st.id', 'r.stimulus_id')
      .select(['st.spec', 'r.value'])
      .where('s.job_id', '=', jobId)
      .where('v.included', '=', 1)
      .execute();
    const counts = truth.map(() => new Float64Array(CONDITIONS * CONDITIONS));
    for (const row of rows) {
      const spec = JSON.parse(row.spec) as { sourceA: string; sourceB: string };
      const a = conditionOf(spec.sourceA);
      const b = conditionOf(spec.sourceB);
      const [winner, loser] = row.value === 0 ? [a, b] : [b, a];
      counts[a.content]![winner.condition * CONDITIONS + loser.condition]! += 1;
    }
    return counts;
  } finally {
    await storage.close();
  }
}

/** Mean sessions running at an arrival: each completed session's span, summed over the run, per arrival gap. */
function meanConcurrency(outcomes: Outcome[]): number {
  const spans = outcomes.map((o) => {
    const start = o.requests.find((r) => r.route === 'playlist')?.at ?? 0;
    return { start, end: o.completedAt ?? start };
  });
  return spans.reduce((n, s) => n + spans.filter((t) => t.start < s.start && t.end > s.start).length, 0) / spans.length;
}

/**
 * The job in-process: participants in arrival order; each sees as judged the answers of those who arrived more
 * than `window` arrivals before, and as pending the comparisons of the `window` before it. Returns the final accuracy.
 */
function simulateAsap(seed: number, window: number): ReturnType<typeof scaleAccuracy> {
  const random = createRandom(seed);
  const judged = truth.map(() => new Float64Array(CONDITIONS * CONDITIONS));
  const given: Array<Array<{ content: number; first: number; second: number; won: boolean }>> = [];
  for (let p = 0; p < PARTICIPANTS; p++) {
    const settled = p - window - 1;
    if (settled >= 0) for (const t of given[settled]!) judged[t.content]![(t.won ? t.first : t.second) * CONDITIONS + (t.won ? t.second : t.first)]! += 1;
    const pending = truth.map(() => new Float64Array(CONDITIONS * CONDITIONS));
    for (let q = Math.max(0, settled + 1); q < p; q++) for (const t of given[q]!) pending[t.content]![Math.min(t.first, t.second) * CONDITIONS + Math.max(t.first, t.second)]! += 1;
    const planned = planComparisons(truth.map((_, c) => ({ n: CONDITIONS, wins: judged[c]!, pending: pending[c]! })), BUDGET, random);
    const oriented = orientComparisons(planned, random);
    const clicker = random.next() < CLICKER_SHARE;
    given.push(planned.map(({ content }, k) => {
      const [first, second] = oriented[k]!;
      return { content, first, second, won: prefers(truth[content]!, first, second, random, clicker) };
    }));
  }
  for (let settled = Math.max(0, PARTICIPANTS - window - 1); settled < PARTICIPANTS; settled++) {
    for (const t of given[settled]!) judged[t.content]![(t.won ? t.first : t.second) * CONDITIONS + (t.won ? t.second : t.first)]! += 1;
  }
  return scaleAccuracy(judged, truth);
}

/** The full design at the same budget: participant p gets the next 7 pairs of each content's cyclic full design. */
function simulateFull(seed: number): ReturnType<typeof scaleAccuracy> {
  const random = createRandom(seed);
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < CONDITIONS; i++) for (let j = i + 1; j < CONDITIONS; j++) pairs.push([i, j]);
  const orders = truth.map(() => shuffled(pairs, random));
  const counts = truth.map(() => new Float64Array(CONDITIONS * CONDITIONS));
  let next = 0;
  for (let p = 0; p < PARTICIPANTS; p++) {
    const clicker = random.next() < CLICKER_SHARE;
    for (let c = 0; c < CONTENTS; c++) {
      for (let k = 0; k < CONDITIONS - 1; k++) {
        const [i, j] = orders[c]![(next + k) % pairs.length]!;
        const [first, second] = random.next() < 0.5 ? [i, j] : [j, i];
        const won = prefers(truth[c]!, first, second, random, clicker);
        counts[c]![(won ? first : second) * CONDITIONS + (won ? second : first)]! += 1;
      }
    }
    next += CONDITIONS - 1;
  }
  return scaleAccuracy(counts, truth);
}

const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;

function routeSummary(outcomes: Outcome[], route: string) {
  const ms = outcomes.flatMap((o) => o.requests.filter((r) => r.route === route && r.status > 0 && r.status < 400).map((r) => r.ms));
  const failed = outcomes.flatMap((o) => o.requests.filter((r) => r.route === route && (r.status === 0 || r.status >= 400))).length;
  return { ...summary(ms), failed };
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'glimpse-bench-adaptive-'));
  const database = await benchDatabase(DIALECT, dir, 'adaptive');
  const nodes: Node[] = [];
  try {
    const mediaDir = await prepare(dir, database.url);
    for (let k = 0; k < NODES; k++) nodes.push(await startNode({ DATABASE_URL: database.url, MEDIA_DIR: mediaDir, RATE_LIMIT_SESSIONS_PER_MINUTE: '0', RATE_LIMIT_ANSWERS_PER_MINUTE: '0' }));
    const runs: Record<string, { outcomes: Outcome[]; wallS: number }> = {};
    for (const jobId of ['fixed', 'adaptive']) {
      const t0 = performance.now();
      const outcomes = await runCrowd(nodes, jobId);
      runs[jobId] = { outcomes, wallS: round((performance.now() - t0) / 1000, 1) };
      console.log(`${jobId}: ${outcomes.filter((o) => o.completedAt !== null).length}/${PARTICIPANTS} completed in ${runs[jobId]!.wallS} s`);
    }
    await sleep(1000); // verdicts of the last codes
    const server = scaleAccuracy(await storedCounts(database.url, 'adaptive'), truth);
    const window = Math.round(meanConcurrency(runs.adaptive!.outcomes));
    const simulated = Array.from({ length: SEEDS }, (_, s) => simulateAsap(700 + s, window));
    const full = Array.from({ length: SEEDS }, (_, s) => simulateFull(900 + s));
    const band = { low: round(quantile(simulated.map((a) => a.rmse), 0.025)), high: round(quantile(simulated.map((a) => a.rmse), 0.975)) };
    const mean = (xs: number[]) => round(xs.reduce((a, b) => a + b, 0) / xs.length);
    const routes = Object.fromEntries(
      Object.entries(runs).map(([jobId, run]) => [jobId, Object.fromEntries(['playlist', 'rating', 'code'].map((route) => [route, routeSummary(run.outcomes, route)]))]),
    );
    const adaptiveRoutes = routes.adaptive!;
    const result = {
      bench: 'bench:adaptive-server',
      date: new Date().toISOString(),
      config: { database: DIALECT, nodes: NODES, participants: PARTICIPANTS, overS: OVER_S, thinkMs: THINK_MS, budget: BUDGET, contents: CONTENTS, conditions: CONDITIONS, step: STEP, truthSeed: TRUTH_SEED, clickerShare: CLICKER_SHARE, seeds: SEEDS },
      completed: Object.fromEntries(Object.entries(runs).map(([jobId, run]) => [jobId, run.outcomes.filter((o) => o.completedAt !== null).length])),
      wallS: Object.fromEntries(Object.entries(runs).map(([jobId, run]) => [jobId, run.wallS])),
      routes,
      arrivalP99Ratio: round(adaptiveRoutes.playlist!.p99 / routes.fixed!.playlist!.p99, 2),
      routeP99TargetMs: ROUTE_P99_TARGET_MS,
      routeTargetMet: ['playlist', 'rating', 'code'].every((route) => adaptiveRoutes[route]!.p99 < ROUTE_P99_TARGET_MS && adaptiveRoutes[route]!.failed === 0),
      server: { rmse: round(server.rmse), pearson: round(server.pearson), spearman: round(server.spearman) },
      simulation: { window, rmseMean: mean(simulated.map((a) => a.rmse)), band, pearsonMean: mean(simulated.map((a) => a.pearson)), spearmanMean: mean(simulated.map((a) => a.spearman)) },
      fullDesign: { rmseMean: mean(full.map((a) => a.rmse)), pearsonMean: mean(full.map((a) => a.pearson)), spearmanMean: mean(full.map((a) => a.spearman)) },
      withinBand: server.rmse >= band.low && server.rmse <= band.high,
    };
    const file = `bench/results/adaptive-server-${DIALECT}-${NODES}n.json`;
    writeBenchResult(file, result);
    console.log(JSON.stringify({ routes: result.routes, server: result.server, simulation: result.simulation, fullDesign: result.fullDesign, withinBand: result.withinBand, routeTargetMet: result.routeTargetMet }, null, 2));
    console.log(`written ${file}`);
  } finally {
    for (const n of nodes) await stopNode(n);
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
