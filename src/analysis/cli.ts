/**
 * `report --votes FILE.csv --protocol PROTOCOL --out DIR [options]`: the analysis of a votes CSV, written as
 * report.html, report.json and CSV tables. The main CLI (src/server/cli.ts) dispatches `report` here.
 */
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { analyse, type AnalysisInput } from './analyse.js';
import { CsvError } from './csv.js';
import { writeReport } from './report/write-report.js';
import type { AnalysisOptions, ProgressEvent, RatingScreening } from './types.js';
import { KNOWN_PROTOCOLS, readVotesCsv } from './votes-csv.js';

export const REPORT_OPTIONS_USAGE = `    --seed N              seed of the bootstraps (default 1)
    --resamples N         bootstrap resamples, paired and MLDS (default 1000; 0 = none)
    --exclude-flagged     leave out votes whose timing is flagged (mistimed presentations)
    --screening METHOD    ratings: observers kept for MOS and P.910 model: none|bt500|p913|correlation (default none)
    --anchor STIMULUS     paired: stimulus fixed at 0 JOD (default: mean of the scale at 0)
    --skip-outliers       paired: skip pwcmp's leave-one-observer-out outlier scores (one refit per observer)
    --sigma PX            bubble: heatmap smoothing σ in stimulus pixels (default: the window radius)
    --cell PX             bubble: heatmap cell size in stimulus pixels (default 4)`;

export const REPORT_USAGE = `report --votes FILE.csv --protocol PROTOCOL --out DIR [options]
                                             analysis report of long-format votes (report.html, report.json, CSVs)
${REPORT_OPTIONS_USAGE}
    protocols: ${KNOWN_PROTOCOLS.join(', ')}`;

const SCREENINGS: RatingScreening[] = ['none', 'bt500', 'p913', 'correlation'];

/** The options of every report command (votes or stored job), for node:util parseArgs. */
export const REPORT_OPTIONS = {
  out: { type: 'string' },
  seed: { type: 'string' },
  resamples: { type: 'string' },
  'exclude-flagged': { type: 'boolean', default: false },
  screening: { type: 'string' },
  anchor: { type: 'string' },
  'skip-outliers': { type: 'boolean', default: false },
  sigma: { type: 'string' },
  cell: { type: 'string' },
} as const;

type ReportValues = { [K in keyof typeof REPORT_OPTIONS]?: (typeof REPORT_OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

function integer(value: string | undefined, name: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value) || Number(value) < min) throw new ReportUsageError(`--${name} must be an integer ≥ ${min}, got "${value}"`);
  return Number(value);
}

function positive(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new ReportUsageError(`--${name} must be a positive number, got "${value}"`);
  return n;
}

export class ReportUsageError extends Error {}

/** The analysis options of the command line; throws ReportUsageError on a bad value. */
export function analysisOptionsOf(values: ReportValues): AnalysisOptions {
  const screening = values.screening ?? 'none';
  if (!SCREENINGS.includes(screening as RatingScreening)) throw new ReportUsageError(`--screening must be one of ${SCREENINGS.join(', ')}, got "${screening}"`);
  return {
    seed: integer(values.seed, 'seed', -(2 ** 31)),
    resamples: integer(values.resamples, 'resamples', 0),
    excludeFlagged: values['exclude-flagged'],
    screening: screening as RatingScreening,
    anchor: values.anchor ?? null,
    pairedOutliers: !values['skip-outliers'],
    bubbleSigma: positive(values.sigma, 'sigma') ?? null,
    bubbleCell: positive(values.cell, 'cell'),
  };
}

/** Long bootstraps report their progress on stderr: at most one line a second, and the last one. */
export function progressLines(err: Writable): (event: ProgressEvent) => void {
  let lastLine = 0;
  return ({ task, done, total }) => {
    if (done === total || Date.now() - lastLine > 1000) {
      lastLine = Date.now();
      err.write(`${task}: ${done}/${total}\n`);
    }
  };
}

/** Runs the command; resolves with the exit code (0 done, 1 usage or data error). */
export async function reportFromVotesCommand(args: string[], io: { out: Writable; err: Writable } = { out: process.stdout, err: process.stderr }): Promise<number> {
  const fail = (message: string) => {
    io.err.write(`${message}\n`);
    return 1;
  };
  let values;
  try {
    ({ values } = parseArgs({ args, allowPositionals: false, options: { ...REPORT_OPTIONS, votes: { type: 'string' }, protocol: { type: 'string' } } }));
  } catch (error) {
    return fail(`${(error as Error).message}\nUsage: ${REPORT_USAGE}`);
  }
  const missing = (['votes', 'protocol', 'out'] as const).filter((name) => !values[name]);
  if (missing.length > 0) return fail(`missing ${missing.map((m) => `--${m}`).join(', ')}\nUsage: ${REPORT_USAGE}`);

  try {
    const options = analysisOptionsOf(values);
    const votes = await readVotesCsv(values.votes as string, values.protocol as string);
    const report = await analyse({ family: votes.family, protocol: values.protocol as string, votes, source: values.votes } as AnalysisInput, {
      ...options,
      onProgress: progressLines(io.err),
    });
    if (votes.skipped > 0) report.notes.push(`${votes.skipped} CSV rows had an empty answer or observer and were skipped as missing answers.`);
    report.votes.skipped += votes.skipped;
    report.votes.read += votes.skipped;
    const files = await writeReport(values.out as string, report);
    io.out.write(`${files.join('\n')}\n`);
    return 0;
  } catch (error) {
    if (error instanceof ReportUsageError) return fail(`${error.message}\nUsage: ${REPORT_USAGE}`);
    if (error instanceof CsvError) return fail(`${values.votes}: ${error.message}`);
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return fail(`cannot read ${values.votes}: no such file`);
    // Data that cannot be analysed (no votes, a singular design, an unknown anchor…): say why, exit 1.
    return fail(`report failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
