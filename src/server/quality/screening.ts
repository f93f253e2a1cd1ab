import type { ViewsRecord } from '../../contract/payloads.js';
import type { StimulusCheck } from '../../contract/quality.js';
import { PROTOCOLS, protocolOf, type ProtocolRegistry } from '../../protocols/registry.js';
import type { AnalysedRating, CheckRules, ProtocolDefinition } from '../../protocols/types.js';
import type { QuotedAnswer } from '../../quality/reasons.js';
import { evaluateSession, visualTestsOutcome, withVisualTests, type ScreenedAnswer, type SessionEvidence, type Verdict } from '../../quality/rules.js';
import { DEFAULT_STOP_LEVEL, meanHalfWidth, type JobPrecision } from '../../analysis/precision.js';
import { parseTiming } from '../export/timing.js';
import { widestIntervalPlaylist } from './allocation.js';
import { pairKey } from '../adaptive/design.js';
import { checkPrecisionRule, jobPrecision } from './precision.js';
import { findJob, type StoredJob } from '../storage/jobs.js';
import { recountLoads } from '../storage/playlist-loads.js';
import { acceptedRatingTotals, completedSessionIds, saveVerdicts, sessionLogStates, sessionTestAnswers, storedVerdict, type RatingTotals } from '../storage/quality.js';
import { acceptedSums, rebuildAcceptedSums, reviseVerdict, storeFirstVerdict, type IncludedRatingCount, type ScoreSums } from '../storage/quality-sums.js';
import { scoreMoments } from '../storage/precision.js';
import { findSessionById } from '../storage/sessions.js';
import { jobMedia } from '../storage/studies.js';
import type { SessionRow, Storage } from '../storage/types.js';

/**
 * Quality control on the server (docs/quality.md): gathers a completed session's evidence, judges it with
 * the job's rules (src/quality/rules.ts) and stores the verdict.
 * - On line (`judgeCompletedSession`): once per session, by whichever of its final requests (the code, its session
 *   logs) comes first. The correlation rule's MOS comes from the running sums of the sessions included so far
 *   (storage/quality-sums.ts), read for the session's own stimuli only: a participant costs their own answers,
 *   whatever the size of the study. Logs that arrive after the verdict only revise its visual-test outcome.
 * - For a whole job (`screenJob`: `cli screen`, the console's re-judge): every completed session again from the
 *   job's totals, since the MOS depends on sessions that came later; then the sums and the playlists' counts are
 *   rebuilt from the new verdicts.
 */

export interface ScreenedSession {
  sessionId: number;
  verdict: Verdict;
}

/** A job ready to judge its sessions: its protocol, rules and media attributes. */
interface JobJudge {
  job: StoredJob;
  protocol: ProtocolDefinition;
  /** Rating protocols: the analysis stimulus and score of an answer (the MOS's terms); null for other families. */
  rating: Tally | null;
  /**
   * What an answer adds to the running sums: the rating's score; for a pair, its pair of options (adaptive/design.ts
   * pairKey) and 1 when the second of them won (an adaptive design's posterior reads them). Null for other families.
   */
  tally: Tally | null;
  answers(session: SessionRow): Promise<TalliedAnswer[]>;
  judge(session: SessionRow, answers: ScreenedAnswer[], mos: SessionEvidence['mos']): Promise<Verdict>;
}

type Score = { sum: number; n: number };
type Tally = (stimulusId: number, spec: unknown, value: number) => { stimulus: string; score: number };
/** A screened answer and its terms in the running sums. */
type TalliedAnswer = ScreenedAnswer & { tally: { stimulus: string; score: number } | null };

async function jobJudge(storage: Storage, job: StoredJob, protocol: ProtocolDefinition): Promise<JobJudge> {
  const media = await jobMedia(storage, job.id);
  const attributes = (path: string) => media.get(path)?.attributes ?? {};
  const adapter = protocol.analysis;
  const rating =
    adapter.family === 'rating'
      ? (stimulusId: number, spec: unknown, value: number) => {
          const vote = adapter.vote({ stimulusId, spec, value, attributes });
          return { stimulus: vote.stimulus, score: vote.score };
        }
      : null;
  const tally: Tally | null =
    adapter.family === 'paired'
      ? (stimulusId, spec, value) => {
          const vote = adapter.vote({ stimulusId, spec, value, attributes });
          return { stimulus: pairKey(vote.scene, vote.a, vote.b), score: vote.winner === (vote.a < vote.b ? vote.b : vote.a) ? 1 : 0 };
        }
      : rating;

  return {
    job,
    protocol,
    rating,
    tally,
    async answers(session) {
      const rows = await sessionTestAnswers(storage, session.id, session.free_task === 1);
      return rows.map((row) => {
        const spec = JSON.parse(row.spec) as { check?: StimulusCheck };
        if (session.free_task === 1) {
          // A free-task bubble session gives no rating: no score, and no answer to hold against a check.
          return { stimulusId: row.stimulus_id, value: row.value, rating: null, tally: null, check: null, checkPassed: null, timing: parseTiming(row.timing) };
        }
        const check = spec.check ?? null;
        const analysed: AnalysedRating<unknown> = { stimulusId: row.stimulus_id, spec, value: row.value, attributes };
        return {
          stimulusId: row.stimulus_id,
          value: row.value,
          rating: rating?.(row.stimulus_id, spec, row.value) ?? null,
          tally: check ? null : (tally?.(row.stimulus_id, spec, row.value) ?? null),
          check,
          checkPassed: check ? (protocol.checks?.passed(check, analysed) ?? false) : null,
          ...(check && protocol.checks ? { quoted: quotedCheck(protocol.checks, check, analysed) } : {}),
          timing: parseTiming(row.timing, row.logs),
          views: row.views === null ? null : (JSON.parse(row.views) as ViewsRecord),
        };
      });
    },
    async judge(session, answers, mos) {
      const evidence: SessionEvidence = {
        answers,
        fullscreenRequired: job.fields.requestFullScreen === 1,
        visualTestsRequired: visualTestsRequired(job),
        visualTestsPassed: visualTestsOutcome(await sessionLogStates(storage, session.id)),
        mos,
      };
      return evaluateSession(evidence, job.quality.rules);
    },
  };
}

const visualTestsRequired = (job: StoredJob) => (job.fields.visualTests?.length ?? 0) > 0;

/**
 * A check's answer and expected answer in the check's own space, by the label the participant's page shows where
 * it has one: the reasons then say "answered Excellent, expected Bad", not a stored index next to a score.
 */
function quotedCheck(rules: CheckRules, check: StimulusCheck, answer: AnalysedRating<unknown>): NonNullable<ScreenedAnswer['quoted']> {
  const quote = (x: StimulusCheck['answer']): QuotedAnswer => {
    const label = rules.labelOf?.(x);
    return label ? { label } : { as: x };
  };
  return { answered: quote(rules.answerOf(answer)), expected: quote(check.answer) };
}

/** A session's ordinary scores (checks left out) per analysis stimulus: what it adds to the MOS when included. */
function ownScores(answers: readonly TalliedAnswer[]): ScoreSums {
  const own: ScoreSums = new Map();
  for (const a of answers) {
    if (!a.tally || a.check) continue;
    const s = own.get(a.tally.stimulus) ?? { sum: 0, squares: 0, n: 0 };
    own.set(a.tally.stimulus, { sum: s.sum + a.tally.score, squares: s.squares + a.tally.score ** 2, n: s.n + 1 });
  }
  return own;
}

/** The job's rating counts as scores per analysis stimulus (checks left out), with the protocol's adapter. */
function scoreTotals(judge: JobJudge, counts: ReadonlyArray<Pick<IncludedRatingCount, 'stimulus_id' | 'spec' | 'value' | 'n'>>): ScoreSums {
  const totals: ScoreSums = new Map();
  if (!judge.tally) return totals;
  for (const row of counts) {
    const spec = JSON.parse(row.spec) as { check?: StimulusCheck };
    if (spec.check) continue;
    const r = judge.tally(row.stimulus_id, spec, row.value);
    const total = totals.get(r.stimulus) ?? { sum: 0, squares: 0, n: 0 };
    totals.set(r.stimulus, { sum: total.sum + r.score * row.n, squares: total.squares + r.score ** 2 * row.n, n: total.n + row.n });
  }
  return totals;
}

/** The MOS of every stimulus from the other accepted sessions: the job's totals less this session's own ratings. */
function mosWithout(sessionId: number, answers: TalliedAnswer[], totals: RatingTotals, scoreTotals: ScoreSums): SessionEvidence['mos'] {
  const included = totals.sessions.includes(sessionId);
  const own = included ? ownScores(answers) : new Map<string, Score>();
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

/** Builds the job's running sums anew from its stored verdicts. */
const rebuildSums = (storage: Storage, judge: JobJudge) => rebuildAcceptedSums(storage, judge.job.id, (counts) => scoreTotals(judge, counts));

/** The on-line MOS: the included sessions' sums of the session's own stimuli (the session is not in them yet). */
async function runningMos(storage: Storage, judge: JobJudge, own: ScoreSums): Promise<SessionEvidence['mos']> {
  if (!judge.rating) return null;
  let sums = await acceptedSums(storage, judge.job.id, [...own.keys()]);
  if (!sums) {
    await rebuildSums(storage, judge);
    sums = (await acceptedSums(storage, judge.job.id, [...own.keys()]))!;
  }
  const byStimulus = new Map<string, number>();
  for (const [stimulus, s] of sums.byStimulus) if (s.n > 0) byStimulus.set(stimulus, s.sum / s.n);
  return { sessions: sums.sessions, byStimulus };
}

/**
 * Judges a completed session once and stores its verdict (with its effect on the running sums and its playlist's
 * count); a session already judged keeps its verdict, which is returned. null when the session is not completed.
 */
export async function judgeCompletedSession(storage: Storage, sessionId: number, protocols: ProtocolRegistry = PROTOCOLS): Promise<Verdict | null> {
  const session = await findSessionById(storage, sessionId);
  if (!session?.completed_at) return null;
  const stored = await storedVerdict(storage, sessionId);
  if (stored) return stored;
  const judge = await judgeOf(storage, session.job_id, protocols);
  if (!judge) return null;
  return judgeOnce(storage, judge, session);
}

async function judgeOnce(storage: Storage, judge: JobJudge, session: SessionRow): Promise<Verdict | null> {
  const answers = await judge.answers(session);
  const own = ownScores(answers);
  const verdict = await judge.judge(session, answers, await runningMos(storage, judge, own));
  // A concurrent final request of the same session may have stored its verdict first: that one stands. An adaptive
  // design's comparisons of the session are judged with it (no longer pending, included or not).
  if (!(await storeFirstVerdict(storage, session, verdict, own, judge.job.design !== null))) return storedVerdict(storage, session.id);
  if (verdict.included) await afterInclusionChanged(storage, judge, own);
  return verdict;
}

/** The included scores' moments, the running sums rebuilt first when stale. */
const freshMoments = (storage: Storage, judge: JobJudge) => async () => {
  const moments = await scoreMoments(storage, judge.job.id);
  if (moments) return moments;
  await rebuildSums(storage, judge);
  return (await scoreMoments(storage, judge.job.id)) ?? new Map();
};

/**
 * A session entered or left the analysis: the job's precision rule, if it has one, is judged again
 * (quality/precision.ts). For a rating job, a stimulus of the session's own still short of the target settles it
 * from their rows alone: the whole job is read only when every one of them has reached it.
 */
async function afterInclusionChanged(storage: Storage, judge: JobJudge, own?: ScoreSums): Promise<void> {
  const rule = judge.job.quality.stopWhen;
  if (!rule || judge.job.precisionReachedAt) return;
  if (judge.rating && own && own.size > 0) {
    const sums = await acceptedSums(storage, judge.job.id, [...own.keys()]);
    const level = rule.level ?? DEFAULT_STOP_LEVEL;
    const short = (stimulus: string) => {
      const halfWidth = meanHalfWidth(sums?.byStimulus.get(stimulus) ?? { n: 0, sum: 0, squares: 0 }, level);
      return halfWidth === null || halfWidth > rule.ciHalfWidth;
    };
    if (sums && [...own.keys()].some(short)) return;
  }
  await checkPrecisionRule(storage, judge.job, judge.protocol, freshMoments(storage, judge));
}

/** The playlist a new participant should get when the job allocates by intervals (quality/allocation.ts); else null. */
export async function allocationPreference(storage: Storage, job: StoredJob, protocols: ProtocolRegistry = PROTOCOLS): Promise<number | null> {
  const protocol = protocolOf(job.protocol, protocols);
  if (job.quality.allocation !== 'widest-intervals' || !protocol) return null;
  const judge = await jobJudge(storage, job, protocol);
  return widestIntervalPlaylist(storage, job, protocol, freshMoments(storage, judge));
}

/** The job's running sums, rebuilt first when stale (an adaptive design's arrival reads them under its lock). */
export async function freshRunningSums(storage: Storage, job: StoredJob, protocols: ProtocolRegistry = PROTOCOLS): Promise<void> {
  const protocol = protocolOf(job.protocol, protocols);
  if (protocol) await freshMoments(storage, await jobJudge(storage, job, protocol))();
}

/** Stopping for precision as the console and the report show it; null when the study sets no rule. */
export async function precisionOfJob(storage: Storage, job: StoredJob, protocols: ProtocolRegistry = PROTOCOLS): Promise<(JobPrecision & { reachedAt: string | null }) | null> {
  const protocol = protocolOf(job.protocol, protocols);
  if (!job.quality.stopWhen || !protocol) return null;
  const judge = await jobJudge(storage, job, protocol);
  const precision = await jobPrecision(storage, job, protocol, freshMoments(storage, judge));
  return precision && { ...precision, reachedAt: job.precisionReachedAt };
}

/**
 * The session's logs were stored: judges the session if it is completed and not judged yet, else revises only its
 * visual-test outcome from the logs (the one rule that reads them), moving it in or out of the sums if that changes
 * the analysis verdict. Returns the verdict now stored; null when the session is not completed.
 */
export async function judgeWithLogs(storage: Storage, sessionId: number, protocols: ProtocolRegistry = PROTOCOLS): Promise<Verdict | null> {
  const session = await findSessionById(storage, sessionId);
  if (!session?.completed_at) return null;
  const judge = await judgeOf(storage, session.job_id, protocols);
  if (!judge) return null;
  const stored = (await storedVerdict(storage, sessionId)) ?? (await judgeOnce(storage, judge, session));
  if (!stored || !visualTestsRequired(judge.job)) return stored;
  // Even a verdict stored just now may have read the logs before these were committed (the code came first).
  const evidence = { visualTestsRequired: true, visualTestsPassed: visualTestsOutcome(await sessionLogStates(storage, session.id)) };
  if (!withVisualTests(stored, evidence, judge.job.quality.rules)) return stored;
  const own = ownScores(await judge.answers(session));
  const revised = await reviseVerdict(storage, session, (old) => withVisualTests(old, evidence, judge.job.quality.rules), own);
  if (revised && revised.included !== stored.included) await afterInclusionChanged(storage, judge, revised.included ? own : undefined);
  return revised;
}

export interface ScreenJobOptions {
  /** Tests only: runs once every session has been read and judged, before any verdict is written. */
  afterJudging?: () => Promise<void>;
}

/**
 * Judges every completed session of a job again, in completion order, and stores the verdicts. The MOS of the
 * correlation rule comes from the sessions accepted before this run (one pass: a session newly rejected here
 * still counts in the others' MOS until the next run). The verdicts are stored together (a session withdrawn
 * meanwhile is left out, of them and of the result), then the playlists' counts and the running sums are rebuilt
 * from them, each in its own transaction in the lock order (storage/playlist-loads.ts).
 */
export async function screenJob(storage: Storage, jobId: string, protocols: ProtocolRegistry = PROTOCOLS, opts: ScreenJobOptions = {}): Promise<ScreenedSession[]> {
  const judge = await judgeOf(storage, jobId, protocols);
  if (!judge) throw new Error(`no job ${jobId} with a protocol this server knows`);
  const totals = judge.rating ? await acceptedRatingTotals(storage, jobId) : null;
  const totalScores: ScoreSums = totals ? scoreTotals(judge, totals.counts) : new Map();
  const judged: ScreenedSession[] = [];
  for (const sessionId of await completedSessionIds(storage, jobId)) {
    const session = await findSessionById(storage, sessionId);
    if (!session) continue; // withdrawn since the list was read
    const answers = await judge.answers(session);
    const verdict = await judge.judge(session, answers, totals ? mosWithout(session.id, answers, totals, totalScores) : null);
    judged.push({ sessionId, verdict });
  }
  await opts.afterJudging?.();
  const stored = new Set(await saveVerdicts(storage, jobId, judged));
  await storage.write((trx) => recountLoads(storage, trx, jobId));
  await rebuildSums(storage, judge);
  await afterInclusionChanged(storage, judge);
  return judged.filter((s) => stored.has(s.sessionId));
}
