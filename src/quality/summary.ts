import type { QualityControlSummary, ReportInclusion } from '../analysis/types.js';
import { reasonInWords, ruleInWords, ruleKind } from './reasons.js';
import { RULE_NAMES, type RuleOutcome } from './rules.js';

export interface JudgedSession {
  observer: string;
  completed: boolean;
  /** The stored verdicts; null when the session was never judged. */
  verdict: { approved: boolean; included: boolean; outcomes: RuleOutcome[] } | null;
}

/**
 * Whether a session's answers go into the report: an unjudged session always; otherwise unless a payment rule
 * failed (rejected, kept with `include.rejected`) or a technical rule failed (excluded, kept with `include.excluded`).
 */
export function keptInReport(verdict: JudgedSession['verdict'] | undefined, include: ReportInclusion): boolean {
  if (!verdict) return true;
  const failed = verdict.outcomes.filter((o) => o.status === 'failed');
  const rejected = failed.some((o) => ruleKind(o.rule) === 'payment');
  const technical = failed.some((o) => ruleKind(o.rule) === 'analysis');
  return (include.rejected || !rejected) && (include.excluded || !technical);
}

/** The report's quality-control section: both verdicts per session, what each rule decided, and who was left out. */
export function qualitySummary(sessions: readonly JudgedSession[], include: ReportInclusion): QualityControlSummary {
  const judged = sessions.filter((s) => s.completed && s.verdict);
  const count = (rule: string, status: RuleOutcome['status']) => judged.filter((s) => s.verdict!.outcomes.some((o) => o.rule === rule && o.status === status)).length;
  return {
    include,
    sessions: {
      completed: sessions.filter((s) => s.completed).length,
      approved: judged.filter((s) => s.verdict!.approved).length,
      rejected: judged.filter((s) => !s.verdict!.approved).length,
      included: judged.filter((s) => s.verdict!.included).length,
      excluded: judged.filter((s) => !s.verdict!.included).length,
      notJudged: sessions.filter((s) => s.completed && !s.verdict).length,
      incomplete: sessions.filter((s) => !s.completed).length,
      kept: sessions.filter((s) => keptInReport(s.verdict, include)).length,
    },
    rules: RULE_NAMES.map((rule) => ({
      rule,
      words: ruleInWords(rule),
      decides: ruleKind(rule),
      passed: count(rule, 'passed'),
      failed: count(rule, 'failed'),
      notApplicable: count(rule, 'not applicable'),
    })),
    observers: sessions.map((s) => ({
      observer: s.observer,
      payment: !s.completed ? 'incomplete' : !s.verdict ? 'not judged' : s.verdict.approved ? 'approve' : 'reject',
      analysis: !s.completed ? 'incomplete' : !s.verdict ? 'not judged' : s.verdict.included ? 'include' : 'exclude',
      inReport: keptInReport(s.verdict, include),
      failed: (s.verdict?.outcomes ?? []).filter((o) => o.status === 'failed').map((o) => ({ rule: o.rule, decides: ruleKind(o.rule), reason: reasonInWords(o) })),
    })),
  };
}
