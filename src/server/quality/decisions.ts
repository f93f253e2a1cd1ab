import { neutraliseFormula } from '../../analysis/csv.js';
import type { Platform } from '../../contract/platforms.js';
import type { StudyQuality } from '../../contract/quality.js';
import type { RuleName, RuleOutcome } from '../../quality/rules.js';
import type { DecisionRow } from '../storage/quality.js';

/**
 * The accept/reject lists of a job for a crowd platform's bulk tools (`cli decisions JOBID --platform ...`), built
 * from the stored verdicts of its completed sessions. A session without a verdict is approved: screening never
 * withholds payment by accident. Files (README "Quality control"):
 * - prolific: approve.csv and reject.csv by PROLIFIC_PID and submission (SESSION_ID), with Prolific's rejection
 *   category and a message of at least 100 characters (Prolific's minimum); bonus.csv as Prolific's bulk bonus
 *   form takes it (`participant_id,amount` lines, no header); block-list.txt, one participant id per line.
 * - mturk: decisions.csv with the batch-results columns the requester site's "Upload CSV" reads (HITId,
 *   AssignmentId, WorkerId, Approve = x, Reject = the feedback text); bonus.csv for SendBonus (WorkerId,
 *   AssignmentId, BonusAmount, Reason); block-list.csv for CreateWorkerBlock (WorkerId, Reason).
 *
 * CSV injection (OWASP): the free-text cells written from the study file (rejection message, bonus reason) get a
 * leading `'` when they begin with `=`, `+`, `-`, `@`, tab or CR (`text` below), so opening a list in a spreadsheet
 * runs nothing. The platform ids (PROLIFIC_PID, submission, study, WorkerId, AssignmentId, HITId) and the bonus
 * amount are written unchanged: Prolific's and MTurk's bulk uploads match ids byte for byte and read the amount as
 * a number, so a quote would break the upload (every row would name an unknown participant). They cannot hold a
 * formula that does anything: ids are checked at the playlist call (letters, digits, `_`, `-`: no parentheses, so
 * no function call) and the amount matches `\d+(\.\d+)?`.
 */

export const DECISION_PLATFORMS = ['prolific', 'mturk'] as const satisfies readonly Platform[];
export type DecisionPlatform = (typeof DECISION_PLATFORMS)[number];

export interface DecisionFile {
  name: string;
  /** null: no header line (Prolific's bulk bonus form reads bare lines). */
  header: string[] | null;
  rows: string[][];
}

export interface Decisions {
  files: DecisionFile[];
  approved: number;
  rejected: number;
  /** Completed sessions left out of the lists, each with why (another platform, no platform id). */
  skipped: string[];
}

const DEFAULT_REJECTION =
  'Your submission did not pass the quality checks announced in this study (gold and attention questions, consistent ratings, full viewing of every stimulus)';

/** Prolific's rejection categories, chosen from the first failed rule. */
const PROLIFIC_CATEGORY: Record<RuleName, string> = {
  gold: 'FAILED_CHECK',
  traps: 'FAILED_CHECK',
  attention: 'FAILED_CHECK',
  minVariance: 'LOW_EFFORT',
  minCorrelation: 'LOW_EFFORT',
  minTrialMs: 'TOO_QUICKLY',
  shownToEnd: 'FAILED_INSTRUCTIONS',
  maxMistimedShare: 'FAILED_INSTRUCTIONS',
  fullscreen: 'FAILED_INSTRUCTIONS',
  visualTests: 'FAILED_INSTRUCTIONS',
};

/** A free-text cell of the lists (see CSV injection above). */
const text = neutraliseFormula;

const failedOf = (row: DecisionRow): RuleOutcome[] => (row.outcomes ? (JSON.parse(row.outcomes) as RuleOutcome[]).filter((o) => o.status === 'failed') : []);

/** The rejection text sent to the participant: the study's message, then each failed rule in words. */
export function rejectionMessage(quality: StudyQuality, failed: RuleOutcome[], minimumLength = 0): string {
  let text = `${(quality.rejectionMessage ?? DEFAULT_REJECTION).replace(/[.\s]+$/, '')}. Failed: ${failed.map((o) => `${o.rule} (${o.detail})`).join('; ')}.`;
  if (text.length < minimumLength) text += ' Please contact the researchers through the platform if you think this is a mistake.';
  return text.slice(0, 1024);
}

export function platformDecisions(rows: readonly DecisionRow[], platform: DecisionPlatform, quality: StudyQuality): Decisions {
  const skipped: string[] = [];
  const mine = rows.filter((row) => {
    if (row.platform !== platform) {
      skipped.push(`session ${row.session_id}: came from ${row.platform}`);
      return false;
    }
    const missing = platform === 'prolific' ? (!row.prolific_pid ? 'PROLIFIC_PID' : null) : !row.assignment_id ? 'assignmentId' : !row.worker_id ? 'workerId' : null;
    if (missing) skipped.push(`session ${row.session_id}: no ${missing}`);
    return missing === null;
  });
  const accepted = mine.filter((r) => r.accepted !== 0);
  const rejected = mine.filter((r) => r.accepted === 0);
  const bonus = quality.bonus;
  const reason = bonus?.reason ?? 'Bonus for careful participation';

  const files: DecisionFile[] =
    platform === 'prolific'
      ? [
          { name: 'approve.csv', header: ['participant_id', 'submission_id', 'study_id', 'session_id'], rows: accepted.map((r) => [r.prolific_pid!, r.prolific_session_id ?? '', r.study_id ?? '', String(r.session_id)]) },
          {
            name: 'reject.csv',
            header: ['participant_id', 'submission_id', 'study_id', 'session_id', 'rejection_category', 'message'],
            rows: rejected.map((r) => {
              const failed = failedOf(r);
              return [r.prolific_pid!, r.prolific_session_id ?? '', r.study_id ?? '', String(r.session_id), PROLIFIC_CATEGORY[failed[0]?.rule as RuleName] ?? 'OTHER', text(rejectionMessage(quality, failed, 100))];
            }),
          },
          ...(bonus ? [{ name: 'bonus.csv', header: null, rows: accepted.map((r) => [r.prolific_pid!, bonus.amount]) }] : []),
          { name: 'block-list.txt', header: null, rows: unique(rejected.map((r) => r.prolific_pid!)).map((id) => [id]) },
        ]
      : [
          {
            name: 'decisions.csv',
            header: ['HITId', 'AssignmentId', 'WorkerId', 'Approve', 'Reject'],
            rows: mine.map((r) => [r.hit_id ?? '', r.assignment_id!, r.worker_id!, r.accepted === 0 ? '' : 'x', r.accepted === 0 ? text(rejectionMessage(quality, failedOf(r))) : '']),
          },
          ...(bonus ? [{ name: 'bonus.csv', header: ['WorkerId', 'AssignmentId', 'BonusAmount', 'Reason'], rows: accepted.map((r) => [r.worker_id!, r.assignment_id!, bonus.amount, text(reason)]) }] : []),
          {
            name: 'block-list.csv',
            header: ['WorkerId', 'Reason'],
            rows: unique(rejected.map((r) => r.worker_id!)).map((id) => [id, 'Failed the quality checks of a previous study of ours']),
          },
        ];
  return { files, approved: accepted.length, rejected: rejected.length, skipped };
}

const unique = (values: string[]) => [...new Set(values)];
