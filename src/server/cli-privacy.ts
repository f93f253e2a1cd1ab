import { parseArgs, type ParseArgsConfig } from 'node:util';
import { findJob } from './storage/jobs.js';
import { planIdentityPurge, purgeIdentities, type IdentityPurge } from './storage/identity-purge.js';
import type { Storage } from './storage/types.js';
import { planWithdrawal, withdraw, WITHDRAWAL_SELECTORS, type WithdrawalPlan, type WithdrawalSelector } from './storage/withdrawals.js';

/** CLI commands that carry out the privacy policy's promises: withdrawal on request, deletion of platform ids. */

export const PRIVACY_USAGE = `  withdraw (--code CODE | --token TOKEN | --worker-id ID | --prolific-pid ID | --email EMAIL) [--job JOBID] [--dry-run]
                                             delete a participant's sessions (answers, logs, platform ids, browser
                                             check) in one transaction; --email also deletes their consent forms
  purge-identities <jobId> [--before DATE] [--dry-run]
                                             delete the platform ids and emails of the job's sessions started
                                             before DATE (YYYY-MM-DD or ISO time with zone; default: all), keep answers`;

type Say = (line: string) => void;
type Fail = (line: string) => number;

/** parseArgs throws on an unknown option or a missing value; turn that into a usage error. */
function parse<T extends ParseArgsConfig>(config: T, fail: Fail): ReturnType<typeof parseArgs<T>> | number {
  try {
    return parseArgs(config);
  } catch (error) {
    return fail(`${(error as Error).message}\nUsage:\n${PRIVACY_USAGE}`);
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export async function withdrawCommand(storage: Storage, args: string[], say: Say, fail: Fail): Promise<number> {
  const parsed = parse(
    {
      args,
      options: {
        code: { type: 'string' },
        token: { type: 'string' },
        'worker-id': { type: 'string' },
        'prolific-pid': { type: 'string' },
        email: { type: 'string' },
        job: { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
      },
    },
    fail,
  );
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const given = WITHDRAWAL_SELECTORS.filter((kind) => values[kind] !== undefined);
  if (given.length !== 1) return fail(`withdraw needs exactly one of ${WITHDRAWAL_SELECTORS.map((k) => `--${k}`).join(', ')}\nUsage:\n${PRIVACY_USAGE}`);
  const selector: WithdrawalSelector = { by: given[0], value: String(values[given[0]]) };
  if (selector.value.trim() === '') return fail(`--${selector.by} is empty`);
  const jobId = values.job;
  if (jobId !== undefined && !(await findJob(storage, jobId))) return fail(`no job ${jobId}`);

  const dryRun = values['dry-run'] === true;
  const result = dryRun ? { plan: await planWithdrawal(storage, selector, { jobId }), deleted: null } : await withdraw(storage, selector, { jobId });
  const { plan, deleted } = result;
  const where = `--${selector.by} ${selector.value}${jobId ? ` in job ${jobId}` : ''}`;
  if (plan.sessions.length === 0 && plan.consents === 0 && plan.earlier.length === 0) {
    return fail(`no session${selector.by === 'email' && !jobId ? ' or consent form' : ''} matches ${where}; nothing deleted`);
  }
  printPlan(plan, say);
  if (selector.by === 'email' && jobId) say('consent forms are not linked to a job: run without --job to delete them too');
  if (plan.sessions.length === 0 && plan.consents === 0) {
    say('nothing left to delete');
    return 0;
  }
  const completed = plan.sessions.filter((s) => s.completedAt !== null);
  const sessions = plan.sessions;
  if (deleted === null) {
    say(
      `dry run, nothing deleted; would delete ${plural(sessions.length, 'session')}, ${plural(sum(sessions, 'ratings'), 'rating')}, ` +
        `${plural(sum(sessions, 'screenings'), 'screening')}, ${plural(sum(sessions, 'sessionLogs'), 'session log')}, ` +
        `${plural(sessions.filter((s) => s.hasIdentity).length, 'identity row')}, ${plural(plan.consents, 'consent form')}`,
    );
  } else {
    say(
      `deleted in one transaction: ${plural(deleted.sessions, 'session')}, ${plural(deleted.ratings, 'rating')}, ${plural(deleted.screenings, 'screening')}, ` +
        `${plural(deleted.sessionLogs, 'session log')}, ${plural(deleted.identities, 'identity row')}, ${plural(deleted.bchecks, 'browser check')}, ` +
        `${plural(deleted.consents, 'consent form')}`,
    );
  }
  if (completed.length > 0) {
    const jobs = [...new Set(completed.map((s) => s.jobId))].join(', ');
    say(
      `${dryRun ? 'would keep' : 'kept'} ${plural(completed.length, 'withdrawal record')} for the completed session(s) (job, SHA-256 of the platform id and ` +
        `of the verification code, dates; no answer): the participant still gets ALREADY_COMPLETED on ${jobs}. purge-identities deletes these records.`,
    );
  }
  return 0;
}

const sum = (sessions: WithdrawalPlan['sessions'], key: 'ratings' | 'screenings' | 'sessionLogs') => sessions.reduce((n, s) => n + s[key], 0);

function printPlan(plan: WithdrawalPlan, say: Say): void {
  for (const s of plan.sessions) {
    say(
      `session ${s.sessionId}, job ${s.jobId} (${s.platform}), started ${s.startedAt}, ${s.completedAt ? `completed ${s.completedAt}` : 'not completed'}: ` +
        `${plural(s.ratings, 'rating')}, ${plural(s.screenings, 'screening')}, ${plural(s.sessionLogs, 'session log')}` +
        `${s.hasIdentity ? ', platform identity' : ', no platform identity (purged)'}`,
    );
  }
  if (plan.consents > 0) say(`${plural(plan.consents, 'consent form')} with this email`);
  for (const e of plan.earlier) say(`already withdrawn from job ${e.jobId} on ${e.withdrawnAt}`);
}

/** A date (00:00 UTC) or a date and time with its zone; null when it is neither. */
export function parseCutoff(text: string): string | null {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/;
  const withZone = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
  if (!dateOnly.test(text) && !withZone.test(text)) return null;
  const time = Date.parse(text);
  // Date.parse rolls 2025-02-30 over to March: refuse a date that does not read back the same.
  if (Number.isNaN(time) || (dateOnly.test(text) && new Date(time).toISOString().slice(0, 10) !== text)) return null;
  return new Date(time).toISOString();
}

export async function purgeIdentitiesCommand(storage: Storage, args: string[], say: Say, fail: Fail): Promise<number> {
  const parsed = parse({ args, allowPositionals: true, options: { before: { type: 'string' }, 'dry-run': { type: 'boolean', default: false } } }, fail);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [jobId] = positionals;
  if (!jobId || positionals.length > 1) return fail(`purge-identities needs one job id\nUsage:\n${PRIVACY_USAGE}`);
  let before: string | undefined;
  if (values.before !== undefined) {
    const cutoff = parseCutoff(String(values.before));
    if (cutoff === null) return fail(`--before must be a date (YYYY-MM-DD, 00:00 UTC) or an ISO time with its zone (2025-06-01T12:00:00Z), got ${values.before}`);
    before = cutoff;
  }
  if (!(await findJob(storage, jobId))) return fail(`no job ${jobId}`);

  const dryRun = values['dry-run'] === true;
  const counts: IdentityPurge = dryRun ? await planIdentityPurge(storage, jobId, { before }) : await purgeIdentities(storage, jobId, { before });
  say(`job ${jobId}: ${plural(counts.sessions, 'session')} ${before ? `started before ${before}` : '(all dates)'}`);
  const what = `${plural(counts.identities, 'identity row')} (platform ids, invitation emails) and ${plural(counts.tombstones, 'withdrawal record')}`;
  say(dryRun ? `dry run, nothing deleted; would delete ${what}` : `deleted ${what}`);
  say('kept: sessions, ratings, screenings, session logs and browser checks, pseudonymous (a verification code still finds its session: withdraw --code)');
  say(
    'repeat-participant blocking no longer works for these sessions: a participant whose identity is purged gets a new session ' +
      'instead of ALREADY_COMPLETED if they open the job link again',
  );
  return 0;
}
