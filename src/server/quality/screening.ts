import type { ViewsRecord } from '../../contract/payloads.js';
import type { StimulusCheck } from '../../contract/quality.js';
import { PROTOCOLS, protocolOf, type ProtocolRegistry } from '../../protocols/registry.js';
import type { AnalysedRating, ProtocolDefinition } from '../../protocols/types.js';
import { evaluateSession, visualTestsOutcome, type ScreenedAnswer, type SessionEvidence, type Verdict } from '../../quality/rules.js';
import { parseTiming } from '../export/timing.js';
import { findJob, type StoredJob } from '../storage/jobs.js';
import { acceptedRatingTotals, completedSessionIds, saveVerdict, sessionLogStates, sessionTestAnswers, type RatingTotals } from '../storage/quality.js';
import { findSessionById } from '../storage/sessions.js';
import { jobMedia } from '../storage/studies.js';
import type { SessionRow, Storage } from '../storage/types.js';

/**
 * Quality control on the server (README "Quality control"): gathers a completed session's evidence, judges it with
 * the job's rules (src/quality/rules.ts) and stores the verdict. Runs when a session completes, again when its
 * session logs arrive (the visual tests are read from them), and for a whole job on demand (`cli screen`), since
 * the correlation with the MOS depends on sessions that came later.
 */

export interface ScreenedSession {
  sessionId: number;
  verdict: Verdict;
}

/** A job ready to judge its sessions: its protocol, rules, media attributes and the rating totals of the MOS. */
interface JobJudge {
  job: StoredJob;
  judge(session: SessionRow): Promise<Verdict>;
}

type Score = { sum: number; n: number };

async function jobJudge(storage: Storage, job: StoredJob, protocol: ProtocolDefinition): Promise<JobJudge> {
  const media = await jobMedia(storage, job.id);
  const attributes = (path: string) => media.get(path)?.attributes ?? {};
  const adapter = protocol.analysis;
  const rating = (stimulusId: number, spec: unknown, value: number) => {
    if (adapter.family !== 'rating') return null;
    const vote = adapter.vote({ stimulusId, spec, value, attributes });
    return { stimulus: vote.stimulus, score: vote.score };
  };
  const totals: RatingTotals | null = adapter.family === 'rating' ? await acceptedRatingTotals(storage, job.id) : null;
  const scoreTotals = new Map<string, Score>();
  for (const row of totals?.counts ?? []) {
    const spec = JSON.parse(row.spec) as { check?: StimulusCheck };
    if (spec.check) continue;
    const r = rating(row.stimulus_id, spec, row.value)!;
    const total = scoreTotals.get(r.stimulus) ?? { sum: 0, n: 0 };
    scoreTotals.set(r.stimulus, { sum: total.sum + r.score * row.n, n: total.n + row.n });
  }

  return {
    job,
    async judge(session) {
      const rows = await sessionTestAnswers(storage, session.id, session.free_task === 1);
      const answers: ScreenedAnswer[] = rows.map((row) => {
        const spec = JSON.parse(row.spec) as { check?: StimulusCheck };
        if (session.free_task === 1) {
          // A free-task bubble session gives no rating: no score, and no answer to hold against a check.
          return { stimulusId: row.stimulus_id, value: row.value, rating: null, check: null, checkPassed: null, timing: parseTiming(row.timing) };
        }
        const check = spec.check ?? null;
        const analysed: AnalysedRating<unknown> = { stimulusId: row.stimulus_id, spec, value: row.value, attributes };
        return {
          stimulusId: row.stimulus_id,
          value: row.value,
          rating: rating(row.stimulus_id, spec, row.value),
          check,
          checkPassed: check ? (protocol.checks?.passed(check, analysed) ?? false) : null,
          timing: parseTiming(row.timing, row.logs),
          views: row.views === null ? null : (JSON.parse(row.views) as ViewsRecord),
        };
      });
      const evidence: SessionEvidence = {
        answers,
        fullscreenRequired: job.fields.requestFullScreen === 1,
        visualTestsRequired: (job.fields.visualTests?.length ?? 0) > 0,
        visualTestsPassed: visualTestsOutcome(await sessionLogStates(storage, session.id)),
        mos: totals ? mosWithout(session.id, answers, totals, scoreTotals) : null,
      };
      return evaluateSession(evidence, job.quality.rules);
    },
  };
}

/** The MOS of every stimulus from the other accepted sessions: the job's totals less this session's own ratings. */
function mosWithout(sessionId: number, answers: ScreenedAnswer[], totals: RatingTotals, scoreTotals: Map<string, Score>): SessionEvidence['mos'] {
  const included = totals.sessions.includes(sessionId);
  const own = new Map<string, Score>();
  if (included) {
    for (const a of answers) {
      if (!a.rating || a.check) continue;
      const s = own.get(a.rating.stimulus) ?? { sum: 0, n: 0 };
      own.set(a.rating.stimulus, { sum: s.sum + a.rating.score, n: s.n + 1 });
    }
  }
  const byStimulus = new Map<string, number>();
  for (const [stimulus, total] of scoreTotals) {
    const mine = own.get(stimulus) ?? { sum: 0, n: 0 };
    if (total.n - mine.n > 0) byStimulus.set(stimulus, (total.sum - mine.sum) / (total.n - mine.n));
  }
  return { sessions: totals.sessions.length - (included ? 1 : 0), byStimulus };
}

async function judgeOf(storage: Storage, jobId: string, protocols: ProtocolRegistry): Promise<JobJudge | null> {
  const job = await findJob(storage, jobId);
  const protocol = job ? protocolOf(job.protocol, protocols) : null;
  return job && protocol ? jobJudge(storage, job, protocol) : null;
}

/** Judges one completed session and stores its verdict; null when the session is not completed (nothing stored). */
export async function screenSession(storage: Storage, sessionId: number, protocols: ProtocolRegistry = PROTOCOLS): Promise<Verdict | null> {
  const session = await findSessionById(storage, sessionId);
  if (!session?.completed_at) return null;
  const judge = await judgeOf(storage, session.job_id, protocols);
  if (!judge) return null;
  const verdict = await judge.judge(session);
  await saveVerdict(storage, session.job_id, session.id, verdict);
  return verdict;
}

/**
 * Judges every completed session of a job again, in completion order, and stores the verdicts. The MOS of the
 * correlation rule comes from the sessions accepted before this run (one pass: a session newly rejected here
 * still counts in the others' MOS until the next run).
 */
export async function screenJob(storage: Storage, jobId: string, protocols: ProtocolRegistry = PROTOCOLS): Promise<ScreenedSession[]> {
  const judge = await judgeOf(storage, jobId, protocols);
  if (!judge) throw new Error(`no job ${jobId} with a protocol this server knows`);
  const screened: ScreenedSession[] = [];
  for (const sessionId of await completedSessionIds(storage, jobId)) {
    const session = (await findSessionById(storage, sessionId))!;
    const verdict = await judge.judge(session);
    await saveVerdict(storage, jobId, sessionId, verdict);
    screened.push({ sessionId, verdict });
  }
  return screened;
}
