import { neutraliseFormula } from '../../analysis/csv.js';
import type { Platform } from '../../contract/platforms.js';
import type { StudyQuality } from '../../contract/quality.js';
import { reasonInWords, ruleKind, type RuleName } from '../../quality/reasons.js';
import type { RuleOutcome } from '../../quality/rules.js';
import type { DecisionRow } from '../storage/quality.js';

/**
 * The accept/reject lists of a job for a crowd platform's bulk tools (`cli decisions JOBID --platform ...`), built
 * from the stored payment verdicts of its completed sessions. Only payment rules (checks, straight-lining, answers
 * too fast) reject; a technical fault (timing, media, window) only excludes a session from the analysis. A session
 * without a verdict is approved: screening never withholds payment by accident. Files (docs/quality.md):
 * - prolific: approve.csv and reject.csv by PROLIFIC_PID and submission (SESSION_ID), with Prolific's rejection
 *   category and a message of at least 100 characters (Prolific's minimum); bonus.csv as Prolific's bulk bonus
 *   form takes it (`participant_id,amount` lines, no header); block-list.txt, one participant id per line.
 * - mturk: decisions.csv with the batch-results columns the requester site's "Upload CSV" reads (HITId,
 *   AssignmentId, WorkerId, Approve = x, Reject = the feedback text); bonus.csv for SendBonus (WorkerId,
 *   AssignmentId, BonusAmount, Reason); block-list.csv for CreateWorkerBlock (WorkerId, Reason).
 * - both: verdicts.csv, every listed session with its payment and analysis verdicts and their reasons in words.
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
  'Your submission did not pass the quality checks announced in this study (questions with a known answer, attention questions, varied and considered answers)';

/** Prolific's rejection categories, chosen from the first failed payment rule (the only rules that reject). */
const PROLIFIC_CATEGORY: Partial<Record<RuleName, string>> = {
  gold: 'FAILED_CHECK',
  traps: 'FAILED_CHECK',
  attention: 'FAILED_CHECK',
  minVariance: 'LOW_EFFORT',
  minCorrelation: 'LOW_EFFORT',
  minTrialMs: 'TOO_QUICKLY',
};

/** A free-text cell of the lists (see CSV injection above). */
const text = neutraliseFormula;

const failedOf = (row: DecisionRow): RuleOutcome[] => (row.outcomes ? (JSON.parse(row.outcomes) as RuleOutcome[]).filter((o) => o.status === 'failed') : []);
const paymentFailures = (row: DecisionRow) => failedOf(row).filter((o) => ruleKind(o.rule) === 'payment');
/** Rejected: the stored payment verdict says so and a payment rule failed (a technical fault never rejects). */
const isRejected = (row: DecisionRow) => row.accepted === 0 && paymentFailures(row).length > 0;

/** The rejection text sent to the participant: the study's message, then each failed payment rule in words. */
export function rejectionMessage(quality: StudyQuality, failed: RuleOutcome[], minimumLength = 0): string {
  let text = `${(quality.rejectionMessage ?? DEFAULT_REJECTION).replace(/[.\s]+$/, '')}. Reasons: ${failed.map((o) => reasonInWords(o)).join('; ')}.`;
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
  const accepted = mine.filter((r) => !isRejected(r));
  const rejected = mine.filter(isRejected);
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
              const failed = paymentFailures(r);
              return [r.prolific_pid!, r.prolific_session_id ?? '', r.study_id ?? '', String(r.session_id), PROLIFIC_CATEGORY[failed[0]!.rule as RuleName] ?? 'OTHER', text(rejectionMessage(quality, failed, 100))];
            }),
          },
          ...(bonus ? [{ name: 'bonus.csv', header: null, rows: accepted.map((r) => [r.prolific_pid!, bonus.amount]) }] : []),
          { name: 'block-list.txt', header: null, rows: unique(rejected.map((r) => r.prolific_pid!)).map((id) => [id]) },
        ]
      : [
          {
            name: 'decisions.csv',
            header: ['HITId', 'AssignmentId', 'WorkerId', 'Approve', 'Reject'],
            rows: mine.map((r) => (isRejected(r) ? [r.hit_id ?? '', r.assignment_id!, r.worker_id!, '', text(rejectionMessage(quality, paymentFailures(r)))] : [r.hit_id ?? '', r.assignment_id!, r.worker_id!, 'x', ''])),
          },
          ...(bonus ? [{ name: 'bonus.csv', header: ['WorkerId', 'AssignmentId', 'BonusAmount', 'Reason'], rows: accepted.map((r) => [r.worker_id!, r.assignment_id!, bonus.amount, text(reason)]) }] : []),
          {
            name: 'block-list.csv',
            header: ['WorkerId', 'Reason'],
            rows: unique(rejected.map((r) => r.worker_id!)).map((id) => [id, 'Failed the quality checks of a previous study of ours']),
          },
        ];
  files.push(verdictsFile(mine, platform));
  return { files, approved: accepted.length, rejected: rejected.length, skipped };
}

/** Every listed session with both verdicts and their reasons in words: what the researcher checks before uploading. */
function verdictsFile(rows: readonly DecisionRow[], platform: DecisionPlatform): DecisionFile {
  const participant = (r: DecisionRow) => (platform === 'prolific' ? r.prolific_pid! : r.worker_id!);
  return {
    name: 'verdicts.csv',
    header: ['session_id', 'participant', 'payment', 'payment_reasons', 'analysis', 'analysis_reasons'],
    rows: rows.map((r) => {
      const failed = failedOf(r);
      const judged = r.outcomes !== null;
      return [
        String(r.session_id),
        participant(r),
        isRejected(r) ? 'reject' : 'approve',
        text(paymentFailures(r).map((o) => reasonInWords(o)).join('; ')),
        !judged ? 'include (not judged)' : failed.length === 0 ? 'include' : 'exclude',
        text(failed.map((o) => reasonInWords(o)).join('; ')),
      ];
    }),
  };
}

const unique = (values: string[]) => [...new Set(values)];
