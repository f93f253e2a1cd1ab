import type { QualityControlSummary } from '../analysis/report-types.js';
import { RULE_NAMES, type RuleOutcome } from './rules.js';

export interface JudgedSession {
  observer: string;
  completed: boolean;
  /** The stored verdict; null when the session was never judged. */
  verdict: { accepted: boolean; outcomes: RuleOutcome[] } | null;
}

/** The report's quality-control section: sessions kept by each rule and each observer's failed rules. */
export function qualitySummary(sessions: readonly JudgedSession[], rejectedExcluded: boolean): QualityControlSummary {
  const judged = sessions.filter((s) => s.completed && s.verdict);
  const count = (rule: string, status: RuleOutcome['status']) => judged.filter((s) => s.verdict!.outcomes.some((o) => o.rule === rule && o.status === status)).length;
  return {
    rejectedExcluded,
    sessions: {
      completed: sessions.filter((s) => s.completed).length,
      accepted: judged.filter((s) => s.verdict!.accepted).length,
      rejected: judged.filter((s) => !s.verdict!.accepted).length,
      notJudged: sessions.filter((s) => s.completed && !s.verdict).length,
      incomplete: sessions.filter((s) => !s.completed).length,
    },
    rules: RULE_NAMES.map((rule) => ({ rule, passed: count(rule, 'passed'), failed: count(rule, 'failed'), notApplicable: count(rule, 'not applicable') })),
    observers: sessions.map((s) => ({
      observer: s.observer,
      verdict: !s.completed ? 'incomplete' : !s.verdict ? 'not judged' : s.verdict.accepted ? 'accepted' : 'rejected',
      failed: (s.verdict?.outcomes ?? []).filter((o) => o.status === 'failed').map((o) => ({ rule: o.rule, detail: o.detail })),
    })),
  };
}
