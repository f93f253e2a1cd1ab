/**
 * bench:launch --synthetic: the cost of completing one more session on a study of 100 and of 10,000 completed
 * sessions (issue 26: a participant's cost is O(their own answers)). Each study is written straight into the
 * database (bench/analysis/synthetic.ts: 20 stimuli per playlist, a playlist per 50 observers, every session judged
 * and included), then 40 more participants rate their playlist through the API (in process, app.inject) and ask
 * for their code one after the other: the code's request completes the session and judges it. Reported: the
 * code's latency at both sizes and their ratio (target ≤ 1.5), and, as the "before", the time of the aggregate the
 * former verdict ran on every completion (`acceptedRatingTotals`, still what `cli screen` reads once per job).
 */
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/server/app.js';
import { jobStats } from '../../src/server/console/stats.js';
import { judgeCompletedSession } from '../../src/server/quality/screening.js';
import { openStorage } from '../../src/server/storage/open.js';
import { completeSession } from '../../src/server/storage/sessions.js';
import { recountLoads } from '../../src/server/storage/playlist-loads.js';
import { findJob } from '../../src/server/storage/jobs.js';
import { acceptedRatingTotals } from '../../src/server/storage/quality.js';
import { timingEnvelopeOf } from '../../testkit/participants.js';
import { buildAcrJob } from '../analysis/synthetic.js';
import { benchDatabase } from '../shared/database.js';
import { summary, type Summary } from '../shared/measure.js';
import { explainReads, type ExplainedStatement } from './explain.js';

const NEW_PARTICIPANTS = 40;
const JOB = 'synthetic';

interface SizeResult {
  sessions: number;
  /** GET /api/sessions/token: completion and on-line verdict. */
  code: Summary;
  /** The former per-completion aggregate over the job. */
  formerAggregate: Summary;
  /** One computation of the console's live statistics of the job (every 2 s while a console watches it). */
  liveStatistics: Summary;
  /** PostgreSQL: EXPLAIN ANALYZE of the former aggregate and of the reads of one completion's verdict now. */
  explain?: { former: ExplainedStatement[]; now: ExplainedStatement[] };
}

/** A new participant who rated every stimulus of their playlist through the API (no code asked yet). */
async function ratedSession(app: FastifyInstance, pid: string): Promise<{ session_id: number; sessionToken: string }> {
  const playlist = JSON.parse((await app.inject(`/api/getacr/${JOB}?platform=prolific&PROLIFIC_PID=${pid}`)).body) as { session_id: number; sessionToken: string; stimulis: Array<{ stimuliId: number; source: string }> };
  for (const [k, s] of playlist.stimulis.entries()) {
    const body = { stimuli_id: s.stimuliId, session_id: playlist.session_id, session_token: playlist.sessionToken, value: (pid.length + k) % 5, nbReplay: 0, logs: null, timing: timingEnvelopeOf({ media: s.source }) };
    const res = await app.inject({ method: 'POST', url: '/api/ratings/', payload: body });
    if (res.statusCode !== 201) throw new Error(`rating refused: ${res.statusCode} ${res.body}`);
  }
  return playlist;
}

async function measureSize(dialect: 'sqlite' | 'postgres', observers: number): Promise<SizeResult> {
  const dir = await mkdtemp(join(tmpdir(), 'glimpse-bench-launch-synthetic-'));
  const database = await benchDatabase(dialect, dir, dialect === 'sqlite' ? 'synthetic' : 'launch');
  const storage = await openStorage({ databaseUrl: database.url });
  try {
    await buildAcrJob(storage, { jobId: JOB, observers, stimuli: 20, seed: 26 });
    // Every synthetic session judged and included, as on-line verdicts would have left them; the sums and counts are
    // rebuilt from these verdicts by the first completion (stale) and the recount below.
    const sessions = await storage.db.selectFrom('sessions').select('id').where('job_id', '=', JOB).execute();
    for (let i = 0; i < sessions.length; i += 1000) {
      await storage.db
        .insertInto('session_verdicts')
        .values(sessions.slice(i, i + 1000).map((s) => ({ session_id: s.id, job_id: JOB, accepted: 1, included: 1, outcomes: '[]', evaluated_at: '2025-01-01T00:00:00.000Z' })))
        .execute();
    }
    await storage.db.updateTable('accepted_sessions').set({ stale: 1 }).where('job_id', '=', JOB).execute();
    await storage.db.updateTable('jobs').set({ status: 'open' }).where('id', '=', JOB).execute();
    await storage.write((trx) => recountLoads(storage, trx, JOB));
    // Planner statistics, as autovacuum would have gathered them on a study that grew to this size over days (a bulk
    // insert just now has none: PostgreSQL then joined ratings by a scan, 19 ms a verdict at 10,000 sessions).
    if (dialect === 'postgres') await sql`analyze`.execute(storage.db);

    const mediaDir = join(dir, 'media');
    await mkdir(mediaDir, { recursive: true });
    const app = await buildApp({ storage, mediaDir, webDir: join(dir, 'web'), mediaBaseUrl: '', rateLimits: false });
    try {
      const tokens: string[] = [];
      for (let p = 0; p < NEW_PARTICIPANTS + 1; p++) tokens.push((await ratedSession(app, `new${p}`)).sessionToken);
      // The first completion rebuilds the stale sums (once per job): not measured.
      const [first, ...measured] = tokens;
      await app.inject(`/api/sessions/token/${first}`);
      const code: number[] = [];
      for (const token of measured) {
        const started = performance.now();
        const res = await app.inject(`/api/sessions/token/${token}`);
        code.push(performance.now() - started);
        if (res.statusCode !== 200) throw new Error(`code refused: ${res.statusCode} ${res.body}`);
      }
      const judged = await storage.db.selectFrom('session_verdicts').select('session_id').where('job_id', '=', JOB).execute();
      if (judged.length !== observers + NEW_PARTICIPANTS + 1) throw new Error(`${judged.length} verdicts for ${observers + NEW_PARTICIPANTS + 1} sessions`);
      const formerAggregate: number[] = [];
      for (let i = 0; i < 10; i++) {
        const started = performance.now();
        await acceptedRatingTotals(storage, JOB);
        formerAggregate.push(performance.now() - started);
      }
      const job = (await findJob(storage, JOB))!;
      const liveStatistics: number[] = [];
      for (let i = 0; i < 10; i++) {
        const started = performance.now();
        await jobStats(storage, job, 30);
        liveStatistics.push(performance.now() - started);
      }
      let explain: SizeResult['explain'];
      if (dialect === 'postgres') {
        // One more session completed without its verdict, then judged with every read recorded.
        const extra = await ratedSession(app, 'explained');
        await completeSession(storage, extra.session_id);
        explain = {
          former: await explainReads(storage, (spy) => acceptedRatingTotals(spy, JOB)),
          now: await explainReads(storage, (spy) => judgeCompletedSession(spy, extra.session_id)),
        };
      }
      return { sessions: observers, code: summary(code), formerAggregate: summary(formerAggregate), liveStatistics: summary(liveStatistics), explain };
    } finally {
      await app.close();
    }
  } finally {
    await storage.close();
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

export interface SyntheticResult {
  dialect: 'sqlite' | 'postgres';
  small: SizeResult;
  large: SizeResult;
  /** p50 of the code at 10,000 sessions over p50 at 100 (target ≤ 1.5). */
  ratio: number;
}

export async function syntheticStudy(dialect: 'sqlite' | 'postgres', sizes: [number, number] = [100, 10_000]): Promise<SyntheticResult> {
  const small = await measureSize(dialect, sizes[0]);
  const large = await measureSize(dialect, sizes[1]);
  return { dialect, small, large, ratio: Math.round((large.code.p50 / small.code.p50) * 100) / 100 };
}
