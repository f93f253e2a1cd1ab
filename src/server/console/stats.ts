import { ruleKind, verdictsOf, type RuleKind } from '../../quality/reasons.js';
import type { RuleOutcome } from '../../quality/rules.js';
import { RULE_NAMES } from '../../quality/rules.js';
import { abandonedSessions, playlistCounts, type PlaylistCounts, sessionTimes, verdictsOfJob } from '../storage/console-reads.js';
import type { JobPrecision } from '../../analysis/precision.js';
import type { AdaptiveDesignSummary } from '../../analysis/asap/plan.js';
import { designSummary } from '../adaptive/design.js';
import { PROTOCOLS, type ProtocolRegistry } from '../../protocols/registry.js';
import { precisionOfJob } from '../quality/screening.js';
import type { StoredJob } from '../storage/jobs.js';
import type { Storage } from '../storage/types.js';
import { unstartedVisits } from '../storage/visits.js';

/**
 * What the console's job page shows, live (docs/console.md): progress per playlist against the target of accepted
 * observers, completions over time, the median session duration, where participants leave, the timing quality
 * and the screening verdicts. Everything is read from the database, so any node can serve it.
 */

export type PlaylistProgress = PlaylistCounts;

export interface JobStats {
  status: 'draft' | 'open' | 'paused' | 'full' | 'closed';
  target: number | null;
  /** Links opened whose visitor never passed eligibility: no session, no playlist slot, no lease (storage/visits.ts). */
  visited: number;
  /** accepted/rejected: the payment verdict; excluded: left out of the analysis (technical reasons included). */
  sessions: { started: number; running: number; completed: number; accepted: number; rejected: number; excluded: number; notJudged: number };
  playlists: PlaylistProgress[];
  /** Completions per hour (UTC), oldest first. */
  completions: Array<{ hour: string; completed: number }>;
  medianSessionMinutes: number | null;
  /** Where the abandoned sessions stopped (those in progress apart), most first; the page names the phases. */
  dropOut: DropOut[];
  /** Completed sessions whose answers were timed within tolerance (the maxMistimedShare rule), and those that were not. */
  timing: { passed: number; failed: number };
  /** Each rule with what it decides (payment: rejects and excludes; analysis: excludes only); the page says it in words. */
  rules: Array<{ rule: string; kind: RuleKind; passed: number; failed: number }>;
  /** The latest sessions rejected or excluded, with both verdicts and the failed rules (the page says them in words). */
  rejections: Array<{ sessionId: number; completedAt: string | null; payment: 'approve' | 'reject'; analysis: 'include' | 'exclude'; failed: FailedRule[] }>;
  /** Stopping for precision, when the study sets it (docs/quality.md): every stimulus, widest interval first. */
  precision: (JobPrecision & { reachedAt: string | null }) | null;
  /** An adaptive design (docs/adaptive.md): how each participant's comparisons are chosen; null for fixed playlists. */
  design: AdaptiveDesignSummary | null;
}

/** A failed rule as the pages get it: its English detail and the facts the page words in its language. */
export type FailedRule = Pick<RuleOutcome, 'rule' | 'detail' | 'facts'>;

export const failedRules = (outcomes: readonly RuleOutcome[]): FailedRule[] =>
  outcomes.filter((o) => o.status === 'failed').map(({ rule, detail, facts }) => ({ rule, detail, facts }));

/** Where an abandoned session stopped: a phase code (the page words it), the stimulus it was on, a failure's kind. */
export interface DropOut {
  phase: 'noLogs' | 'eligibility' | 'visualTests' | 'failedEligibility' | 'welcome' | 'consent' | 'instructions' | 'loading' | 'training' | 'stimulus' | 'failure' | 'other';
  /** The stimulus (1-based) the session was on, for `stimulus`. */
  stimulus?: number;
  /** The failure's or the unknown state's name, for `failure` and `other`. */
  detail?: string;
  sessions: number;
}

export async function jobStats(storage: Storage, job: StoredJob, leaseMinutes: number, protocols: ProtocolRegistry = PROTOCOLS): Promise<JobStats> {
  const cutoff = new Date(Date.now() - leaseMinutes * 60_000).toISOString();
  // An adaptive design's participants each have their own playlist, shown as one row; the study file's playlist
  // (training and checks) is given to nobody as it is.
  const counted = await playlistCounts(storage, job.id, cutoff);
  const playlists: PlaylistProgress[] = job.design ? counted.filter((p) => p.position < 0) : counted;
  const total = (key: keyof PlaylistProgress) => playlists.reduce((n, p) => n + (p[key] as number), 0);
  const completed = total('completed');
  const accepted = total('accepted');
  const rejected = total('rejected');
  const target = job.quality.targetAcceptedPerPlaylist ?? null;
  // As the balancing counts: completed and not rejected, plus still running.
  const full = job.precisionReachedAt !== null || (target !== null && playlists.length > 0 && playlists.every((p) => p.completed - p.rejected + p.running >= target));

  const sessions = await sessionTimes(storage, job.id);
  const durations = sessions.filter((s) => s.completed_at).map((s) => (Date.parse(s.completed_at!) - Date.parse(s.created_at)) / 60_000).sort((a, b) => a - b);
  const median = durations.length === 0 ? null : durations.length % 2 ? durations[(durations.length - 1) / 2]! : (durations[durations.length / 2 - 1]! + durations[durations.length / 2]!) / 2;
  const hours = new Map<string, number>();
  for (const s of sessions) if (s.completed_at) hours.set(`${s.completed_at.slice(0, 13)}:00Z`, (hours.get(`${s.completed_at.slice(0, 13)}:00Z`) ?? 0) + 1);

  const verdicts = await verdictsOfJob(storage, job.id);
  const outcomes = verdicts.map((v) => ({ ...v, parsed: JSON.parse(v.outcomes) as RuleOutcome[] }));
  const rules = RULE_NAMES.map((rule) => ({
    rule,
    kind: ruleKind(rule),
    passed: outcomes.filter((v) => v.parsed.some((o) => o.rule === rule && o.status === 'passed')).length,
    failed: outcomes.filter((v) => v.parsed.some((o) => o.rule === rule && o.status === 'failed')).length,
  }));
  const timingRule = rules.find((r) => r.rule === 'maxMistimedShare')!;

  return {
    status: job.status === 'open' && full ? 'full' : job.status,
    target,
    visited: await unstartedVisits(storage, job.id),
    sessions: {
      started: total('started'),
      running: total('running'),
      completed,
      accepted,
      rejected,
      excluded: outcomes.filter((v) => v.completed_at && !verdictsOf(v.parsed).included).length,
      notJudged: completed - accepted - rejected,
    },
    playlists,
    completions: [...hours].sort(([a], [b]) => (a < b ? -1 : 1)).map(([hour, n]) => ({ hour, completed: n })),
    medianSessionMinutes: median === null ? null : Math.round(median * 10) / 10,
    dropOut: await dropOut(storage, job.id, cutoff),
    timing: { passed: timingRule.passed, failed: timingRule.failed },
    rules,
    rejections: outcomes
      .map((v) => ({ v, verdicts: verdictsOf(v.parsed) }))
      .filter(({ verdicts }) => !verdicts.included)
      .slice(0, 20)
      .map(({ v, verdicts }) => ({
        sessionId: v.session_id,
        completedAt: v.completed_at,
        payment: verdicts.approved ? 'approve' : 'reject',
        analysis: 'exclude',
        failed: failedRules(v.parsed),
      })),
    precision: await precisionOfJob(storage, job, protocols),
    design: job.design ? designSummary(job.design) : null,
  };
}

/**
 * Where the abandoned sessions stopped (begun before the lease cutoff and not completed): the last state their
 * interaction logs reached (sent by a beacon when the page was closed; kept on the session when its log is stored,
 * so no log body is read), and in the test, the stimulus they were on (answers stored + 1). Sessions still in
 * progress have not left: they are not counted.
 */
async function dropOut(storage: Storage, jobId: string, cutoff: string): Promise<DropOut[]> {
  const places = new Map<string, DropOut>();
  for (const s of await abandonedSessions(storage, jobId, cutoff)) {
    const place = placeOf(s.lastState, s.answers);
    const key = `${place.phase}:${place.stimulus ?? ''}:${place.detail ?? ''}`;
    const seen = places.get(key);
    if (seen) seen.sessions++;
    else places.set(key, { ...place, sessions: 1 });
  }
  return [...places.values()].sort((a, b) => b.sessions - a.sessions);
}

function placeOf(state: { state: string; status: string } | null, answers: number): Omit<DropOut, 'sessions'> {
  if (answers > 0) return { phase: 'stimulus', stimulus: answers + 1 };
  if (!state) return { phase: 'noLogs' };
  switch (state.state) {
    case 'Eligibility':
      return { phase: state.status === 'visual' ? 'visualTests' : 'eligibility' };
    case 'FailEligibility':
      return { phase: 'failedEligibility' };
    case 'Instruction':
      return { phase: state.status === 'consent' ? 'consent' : state.status === 'welcome' ? 'welcome' : 'instructions' };
    case 'Loading':
      return { phase: 'loading' };
    case 'Test':
      return state.status === 'training' ? { phase: 'training' } : { phase: 'stimulus', stimulus: 1 };
    case 'Fail':
      return { phase: 'failure', detail: state.status };
    default:
      return { phase: 'other', detail: state.state };
  }
}
