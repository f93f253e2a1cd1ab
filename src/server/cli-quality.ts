import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { csvLine } from '../analysis/csv.js';
import { ruleInWords, ruleKind } from '../quality/reasons.js';
import { exclusionReasons, RULE_NAMES } from '../quality/rules.js';
import { DECISION_PLATFORMS, platformDecisions, type DecisionPlatform } from './quality/decisions.js';
import { screenJob } from './quality/screening.js';
import { findJob } from './storage/jobs.js';
import { decisionRows } from './storage/quality.js';
import type { Storage } from './storage/types.js';

export const QUALITY_USAGE = `  screen <jobId>                             judge every completed session again with the job's quality rules
                                             (docs/quality.md), store the verdicts, print them
  decisions <jobId> --platform prolific|mturk --out DIR [--no-screen]
                                             accept/reject lists for the platform's bulk tools, bonus list,
                                             block list (judges the sessions first unless --no-screen)`;

type Say = (line: string) => void;
type Fail = (line: string) => number;

export async function screenCommand(storage: Storage, args: string[], say: Say, fail: Fail): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) return fail(`screen needs one job id\nUsage:\n${QUALITY_USAGE}`);
  const jobId = positionals[0]!;
  if (!(await findJob(storage, jobId))) return fail(`no job ${jobId}`);
  const screened = await screenJob(storage, jobId);
  say('session_id\tpayment\tanalysis\treasons');
  for (const { sessionId, verdict } of screened) {
    say(`${sessionId}\t${verdict.approved ? 'approve' : 'reject'}\t${verdict.included ? 'include' : 'exclude'}\t${exclusionReasons(verdict).join('; ')}`);
  }
  const approved = screened.filter((s) => s.verdict.approved).length;
  const included = screened.filter((s) => s.verdict.included).length;
  say(`${screened.length} completed sessions: ${approved} approved, ${screened.length - approved} rejected; ${included} included in the analysis, ${screened.length - included} excluded`);
  for (const rule of RULE_NAMES) {
    const failed = screened.filter((s) => s.verdict.outcomes.some((o) => o.rule === rule && o.status === 'failed')).length;
    if (failed > 0) say(`  ${ruleInWords(rule)} (${ruleKind(rule) === 'payment' ? 'rejects and excludes' : 'excludes only'}): ${failed}`);
  }
  return 0;
}

export async function decisionsCommand(storage: Storage, args: string[], say: Say, fail: Fail): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { platform: { type: 'string' }, out: { type: 'string' }, 'no-screen': { type: 'boolean' } } });
  } catch (error) {
    return fail(`${(error as Error).message}\nUsage:\n${QUALITY_USAGE}`);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || !values.out) return fail(`decisions needs one job id, --platform and --out DIR\nUsage:\n${QUALITY_USAGE}`);
  if (!(DECISION_PLATFORMS as readonly string[]).includes(values.platform ?? '')) return fail(`--platform must be ${DECISION_PLATFORMS.join(' or ')}; got ${values.platform ?? 'nothing'}`);
  const jobId = positionals[0]!;
  const job = await findJob(storage, jobId);
  if (!job) return fail(`no job ${jobId}`);
  // The correlation rule depends on sessions that came later: judge everyone again unless told not to.
  if (!values['no-screen']) await screenJob(storage, jobId);
  const decisions = platformDecisions(await decisionRows(storage, jobId), values.platform as DecisionPlatform, job.quality);
  await mkdir(values.out, { recursive: true });
  for (const file of decisions.files) {
    const lines = [...(file.header ? [file.header] : []), ...file.rows];
    // The block list is bare ids, one per line; the rest is RFC 4180 CSV.
    const text = file.name.endsWith('.txt') ? lines.map((l) => `${l.join(',')}\n`).join('') : lines.map((l) => csvLine(l)).join('');
    await writeFile(join(values.out, file.name), text);
    say(`${join(values.out, file.name)}: ${file.rows.length} rows`);
  }
  say(`${values.platform}: ${decisions.approved} to approve, ${decisions.rejected} to reject`);
  for (const line of decisions.skipped) say(`skipped ${line}`);
  return 0;
}
