import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { analysisOptionsOf, progressLines, REPORT_OPTIONS, REPORT_OPTIONS_USAGE, REPORT_USAGE, ReportUsageError, reportFromVotesCommand, writeReport } from '../analysis/index.js';
import { INCLUDE_USAGE, JobReportError, jobReport, parseInclusion } from './report/job-report.js';
import type { Storage } from './storage/types.js';

export const JOB_REPORT_USAGE = `  report <jobId> --out DIR [options]         analysis report of a stored job (report.html, report.json, CSVs)
    ${INCLUDE_USAGE}
${REPORT_OPTIONS_USAGE}
  ${REPORT_USAGE.split('\n')[0]}
                                             the same for votes from elsewhere (\`report --votes\` for its columns)`;

/**
 * `report JOBID --out DIR [options]` (a stored job) or `report --votes FILE.csv --protocol P --out DIR` (votes from
 * elsewhere): the same analysis, written as report.html, report.json and one CSV per table.
 */
export async function reportCommand(storage: Storage, args: string[], mediaDir: string, io: { out: Writable; err: Writable }): Promise<number> {
  if (args.some((a) => a === '--votes' || a.startsWith('--votes='))) return reportFromVotesCommand(args, io);
  const fail = (message: string) => (io.err.write(`${message}\n`), 1);
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { ...REPORT_OPTIONS, include: { type: 'string', multiple: true }, 'include-rejected': { type: 'boolean' } } });
  } catch (error) {
    return fail(`${(error as Error).message}\nUsage:\n${JOB_REPORT_USAGE}`);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || !values.out) return fail(`report needs one job id and --out DIR\nUsage:\n${JOB_REPORT_USAGE}`);
  try {
    const { 'include-rejected': includeRejected, include, ...analysisValues } = values;
    const report = await jobReport(storage, positionals[0]!, {
      ...analysisOptionsOf(analysisValues),
      mediaDir,
      include: parseInclusion(include, includeRejected),
      onProgress: progressLines(io.err),
    });
    const files = await writeReport(values.out, report);
    io.out.write(`${files.join('\n')}\n`);
    return 0;
  } catch (error) {
    if (error instanceof ReportUsageError) return fail(`${error.message}\nUsage:\n${JOB_REPORT_USAGE}`);
    if (error instanceof JobReportError) return fail(error.message);
    return fail(`report failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
