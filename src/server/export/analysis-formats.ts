import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { csvLine } from '../../analysis/index.js';
import { neutraliseFormula } from '../../analysis/csv.js';
import type { AnalysisInput, PairedVote, QuadrupleVote, RatingVote, TripletVote } from '../../analysis/index.js';
import { jobAnalysisInput, JobReportError, type JobReportOptions } from '../report/job-report.js';
import type { Storage } from '../storage/types.js';

/**
 * Exports in the shapes other tools read (`export JOBID --format p910|pairs|mlds`), from the same votes as the
 * report (the protocol's analysis adapter: ACR on the 5 = Excellent scale, reversed displays undone):
 * - `p910`: the P.910 crowd toolkit's votes per clip: clip, n, MOS, std (n − 1), 95%CI (1.96·std/√n);
 * - `pairs`: one row per comparison, pwcmp's columns (observer, session, scene, condition_A, condition_B,
 *   is_A_selected; scene = the media's declared `content`), which choix and BradleyTerry2 read as well;
 * - `mlds`: the R package MLDS's data frame, resp then S1..S4 (triads S1..S3) as ranks of the sorted levels.
 * Text cells (clip and condition names from the study file, observer ids) that begin with `=`, `+`, `-`, `@`, tab
 * or CR get a leading `'` (OWASP CSV injection; numbers stay numbers), unless `raw`: these tools read the files
 * with scripts, which `--raw` serves byte for byte.
 */

export const ANALYSIS_FORMATS = ['p910', 'pairs', 'mlds'] as const;
export type AnalysisFormat = (typeof ANALYSIS_FORMATS)[number];

const FAMILIES: Record<AnalysisFormat, ReadonlyArray<AnalysisInput['family']>> = { p910: ['rating'], pairs: ['paired'], mlds: ['mlds', 'triplet'] };

/** Why a job of this analysis family has no export in this format, or null when it has. */
export function formatMismatch(format: AnalysisFormat, job: { id: string; protocol: string; family: string }): string | null {
  if ((FAMILIES[format] as readonly string[]).includes(job.family)) return null;
  return `--format ${format} is for ${FAMILIES[format].join(' or ')} jobs; job ${job.id} is a ${job.protocol} job (${job.family})`;
}

/** The analysis formats that fit a family of protocols (p910 for ratings, pairs for comparisons, mlds for MLDS). */
export const analysisFormatsOf = (family: AnalysisInput['family']): AnalysisFormat[] => ANALYSIS_FORMATS.filter((f) => FAMILIES[f].includes(family));

export async function exportAnalysisFormat(
  storage: Storage,
  jobId: string,
  format: AnalysisFormat,
  out: Writable,
  options: JobReportOptions & { raw?: boolean },
): Promise<number> {
  const input = await jobAnalysisInput(storage, jobId, options);
  const mismatch = formatMismatch(format, { id: jobId, protocol: input.protocol, family: input.family });
  if (mismatch) throw new JobReportError(mismatch);
  const write = async (values: ReadonlyArray<string | number>) => {
    const cells = values.map((v) => (typeof v === 'string' && !options.raw ? neutraliseFormula(v) : String(v)));
    if (!out.write(csvLine(cells))) await once(out, 'drain');
  };
  if (format === 'p910') return writeVotesPerClip(input.votes as AsyncIterable<RatingVote>, write);
  if (format === 'pairs') return writePairs(input.votes as AsyncIterable<PairedVote>, write);
  return writeMlds(input.votes as AsyncIterable<QuadrupleVote | TripletVote>, input.family === 'mlds', write);
}

type Write = (values: ReadonlyArray<string | number>) => Promise<void>;

async function writeVotesPerClip(votes: AsyncIterable<RatingVote>, write: Write): Promise<number> {
  // Sums per clip: memory grows with the clips, not with the votes.
  const clips = new Map<string, { n: number; sum: number; sumSq: number }>();
  for await (const v of votes) {
    const c = clips.get(v.stimulus) ?? { n: 0, sum: 0, sumSq: 0 };
    c.n += 1;
    c.sum += v.score;
    c.sumSq += v.score * v.score;
    clips.set(v.stimulus, c);
  }
  await write(['clip', 'n', 'MOS', 'std', '95%CI']);
  for (const [clip, { n, sum, sumSq }] of [...clips].sort(([a], [b]) => a.localeCompare(b))) {
    const mos = sum / n;
    const std = n > 1 ? Math.sqrt(Math.max(0, (sumSq - n * mos * mos) / (n - 1))) : 0;
    await write([clip, n, round(mos), round(std), round((1.96 * std) / Math.sqrt(n))]);
  }
  return clips.size;
}

async function writePairs(votes: AsyncIterable<PairedVote>, write: Write): Promise<number> {
  await write(['observer', 'session', 'scene', 'condition_A', 'condition_B', 'is_A_selected']);
  let rows = 0;
  for await (const v of votes) {
    await write([v.observer, v.observer, v.scene ?? '', v.a, v.b, v.winner === v.a ? 1 : 0]);
    rows++;
  }
  return rows;
}

async function writeMlds(votes: AsyncIterable<QuadrupleVote | TripletVote>, quadruples: boolean, write: Write): Promise<number> {
  // Ranks need every level first: the trials are few per job (one row each), kept as numbers.
  const trials: Array<[number, ...number[]]> = [];
  const levels = new Set<number>();
  for await (const v of votes) {
    const s = quadruples ? [v.s1, v.s2, v.s3, (v as QuadrupleVote).s4] : [v.s1, v.s2, v.s3];
    s.forEach((l) => levels.add(l));
    trials.push([v.response, ...s]);
  }
  const rank = new Map([...levels].sort((a, b) => a - b).map((level, i) => [level, i + 1]));
  await write(['resp', ...(quadruples ? ['S1', 'S2', 'S3', 'S4'] : ['S1', 'S2', 'S3'])]);
  for (const [resp, ...s] of trials) await write([resp, ...s.map((l) => rank.get(l)!)]);
  return trials.length;
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;
