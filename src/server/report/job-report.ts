import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { analyse, DEFAULT_TIMING_RULE, TimingAccumulator, unavailableReport, ViewsAccumulator, type AnalysisInput, type AnalysisOptions, type AnyReport, type MediaImage, type ReportInclusion } from '../../analysis/index.js';
import type { TimingEnvelope, ViewsRecord } from '../../contract/payloads.js';
import type { MediaAttributes } from '../../contract/study.js';
import { PROTOCOLS, protocolOf, type ProtocolRegistry } from '../../protocols/registry.js';
import type { AnalysedScreening } from '../../protocols/types.js';
import { mediaType } from '../../contract/media-types.js';
import { parseTiming } from '../export/timing.js';
import { jobStimulusSpecs, reportRatingRows, screeningRows } from '../storage/exports.js';
import { findJob } from '../storage/jobs.js';
import { jobVerdicts, sessionsWithAnswers } from '../storage/quality.js';
import { jobMedia } from '../storage/studies.js';
import { keptInReport, qualitySummary } from '../../quality/summary.js';
import type { Storage } from '../storage/types.js';
import { MissingDataError } from '../../analysis/missing.js';
import { stoppingSummary } from '../../analysis/precision.js';
import { designSummary } from '../adaptive/design.js';
import { precisionOfJob } from '../quality/screening.js';

/**
 * The analysis report of a stored job (`npm run cli -- report JOBID`): its answers read page by page from the
 * database and turned into the votes of its protocol's family by the protocol's own adapter
 * (src/protocols/<name>/index.ts `analysis`), then src/analysis does the rest. Observers are sessions. Training
 * answers are left out; each answer's timing envelope flags it when a step was mistimed (`excludeFlagged` drops
 * those). Sessions that quality control rejected (payment) or excluded (technical) are left out unless `include`
 * says to keep them; the report says who was left out and why. With too few answers for the family's methods the
 * report still answers: the quality control, and what is missing for the results. The answers are read once, a page at a time, never held in memory: each answer's timing is
 * summarised (TimingAccumulator) as its vote is read, and each stimulus's spec is parsed once, not per answer.
 */

export class JobReportError extends Error {}

export interface JobReportOptions extends AnalysisOptions {
  /** Where the job's media are ({mediaDir}/{jobId}/{path}): bubble heatmaps are drawn over them. */
  mediaDir: string;
  /** Keep the sessions that quality control rejected or excluded (by default their answers are left out). */
  include?: Partial<ReportInclusion>;
  protocols?: ProtocolRegistry;
}

type RatingRow = Awaited<ReturnType<typeof reportRatingRows>>[number];
type ScreeningRow = Awaited<ReturnType<typeof screeningRows>>[number];

async function* pages<R extends { id: number }>(read: (afterId: number) => Promise<R[]>): AsyncGenerator<R> {
  for (let afterId = 0; ; ) {
    const rows = await read(afterId);
    if (rows.length === 0) return;
    yield* rows;
    afterId = rows[rows.length - 1]!.id;
  }
}

const plays = (envelope: TimingEnvelope | null) => envelope?.plays.flat() ?? [];
/** How long each media step of a play was on screen, ms. */
function shownMs(envelope: TimingEnvelope | null, label: 'A' | 'B'): number | null {
  const step = plays(envelope).find((r) => r.label === label);
  return step ? step.offsetMs - step.onsetMs : null;
}

/** The analysis input of a stored job: its family, its votes as a stream over the database, and the timing summary that reading them fills. */
export async function jobAnalysisInput(storage: Storage, jobId: string, options: JobReportOptions): Promise<AnalysisInput> {
  const job = await findJob(storage, jobId);
  if (!job) throw new JobReportError(`no job ${jobId}`);
  const protocol = protocolOf(job.protocol, options.protocols ?? PROTOCOLS);
  if (!protocol) throw new JobReportError(`job ${jobId} has protocol ${job.protocol}, which this server does not know`);
  const media = await jobMedia(storage, jobId);
  const attributes = (path: string): MediaAttributes => media.get(path)?.attributes ?? {};
  const verdicts = await jobVerdicts(storage, jobId);
  const include = inclusionOf(options.include);
  const kept = (sessionId: number) => keptInReport(verdicts.get(sessionId), include);
  const quality = qualitySummary(
    (await sessionsWithAnswers(storage, jobId)).map((s) => ({ observer: String(s.id), completed: s.completed, verdict: verdicts.get(s.id) ?? null })),
    include,
  );
  // Each stimulus's spec, parsed once. Test answers only, of the sessions that quality control did not reject; gold,
  // trap and attention-check stimuli are screening tools, not part of the experiment's results.
  const stimuli = new Map(
    (await jobStimulusSpecs(storage, jobId)).map((s) => {
      const spec = JSON.parse(s.spec) as { check?: unknown };
      return [s.id, { spec, test: s.is_training === 0 && spec.check === undefined, media: protocol.stimulus.media(spec).map(([, path]) => path).join(' | ') }];
    }),
  );
  const ratings = () => filter(pages((after) => reportRatingRows(storage, jobId, after)), (r) => kept(r.session_id) && stimuli.get(r.stimulus_id)?.test === true);
  const screenings = () => filter(pages((after) => screeningRows(storage, jobId, after)), (r) => r.is_training === 0 && kept(r.session_id) && !isCheckStimulus(r.spec));
  const timing = new TimingAccumulator({ ...DEFAULT_TIMING_RULE, ...options.timingRule });
  /** Adds an answer's presentations to the timing summary; true when they flag it. */
  const flagged = (r: { id: number; session_id: number }, envelope: TimingEnvelope | null) => {
    const presentations = plays(envelope);
    return presentations.length > 0 && timing.add({ observer: String(r.session_id), trial: String(r.id), presentations }).length > 0;
  };
  const precision = await precisionOfJob(storage, job, options.protocols ?? PROTOCOLS);
  const common = {
    protocol: job.protocol,
    source: `job ${jobId}`,
    quality,
    ...(precision ? { stopping: stoppingSummary(precision, precision.reachedAt) } : {}),
    ...(job.design ? { design: designSummary(job.design) } : {}),
  };

  const adapter = protocol.analysis;
  let input: AnalysisInput;
  if ('screenings' in adapter) {
    // The rating of each play (emotion mode), found by (session, stimulus, play number).
    const ratingOfPlay = new Map<string, number>();
    for await (const r of ratings()) ratingOfPlay.set(`${r.session_id}:${r.stimulus_id}:${r.nb_replay}`, r.value);
    const votes = flatMap(screenings(), (s: ScreeningRow) => {
      const envelope = parseTiming(s.timing);
      const isFlagged = flagged(s, envelope);
      const answer: AnalysedScreening<unknown> = {
        stimulusId: s.stimulus_id,
        spec: JSON.parse(s.spec),
        mouseLogs: JSON.parse(s.mouse_logs),
        shownMs: { A: shownMs(envelope, 'A'), B: shownMs(envelope, 'B') },
        rating: ratingOfPlay.get(`${s.session_id}:${s.stimulus_id}:${s.screening_no}`) ?? null,
      };
      return studyError(() => adapter.screenings(answer)).map((vote) => ({ ...vote, observer: String(s.session_id), flagged: isFlagged }));
    });
    input = { ...common, family: 'bubble', votes, timing, images: await mediaImages(options.mediaDir, jobId, media.keys()) };
  } else {
    // The camera poses of 3D objects, per stimulus (its media: a pair shares one camera), as the votes are read.
    const views = new ViewsAccumulator();
    const votes = mapDefined(ratings(), (r: RatingRow) => {
      const stimulus = stimuli.get(r.stimulus_id)!;
      if (r.views !== null) views.add(stimulus.media, String(r.session_id), JSON.parse(r.views) as ViewsRecord);
      return {
        ...studyError(() => adapter.vote({ stimulusId: r.stimulus_id, spec: stimulus.spec, value: r.value, attributes })),
        observer: String(r.session_id),
        flagged: flagged(r, parseTiming(r.timing, r.logs)),
      };
    });
    input = { ...common, family: adapter.family, votes, timing, views } as AnalysisInput;
  }
  return input;
}

export const INCLUDE_USAGE = `--include rejected|excluded|all    keep the sessions quality control rejected (payment) or excluded
                                             (technical); repeat or comma-separate for both (left out by default)`;

/** `--include rejected,excluded` (repeatable; `all` = both); `--include-rejected` is the older spelling. */
export function parseInclusion(values: readonly string[] | undefined, includeRejected = false): ReportInclusion {
  const words = (values ?? []).flatMap((v) => v.split(',')).map((w) => w.trim()).filter(Boolean);
  const unknown = words.filter((w) => !['rejected', 'excluded', 'all'].includes(w));
  if (unknown.length > 0) throw new JobReportError(`--include takes rejected, excluded or all; got ${unknown.join(', ')}`);
  return { rejected: includeRejected || words.includes('rejected') || words.includes('all'), excluded: words.includes('excluded') || words.includes('all') };
}

export const inclusionOf = (include: Partial<ReportInclusion> | undefined): ReportInclusion => ({ rejected: include?.rejected === true, excluded: include?.excluded === true });

export async function jobReport(storage: Storage, jobId: string, options: JobReportOptions): Promise<AnyReport> {
  const input = await jobAnalysisInput(storage, jobId, options);
  try {
    return await analyse(input, options);
  } catch (error) {
    // Too few answers (or stimuli) for the family's methods: the report says what is missing instead of failing.
    // A study the protocol cannot read (a media without its MLDS level) or a bad option still fails.
    if (error instanceof JobReportError || error instanceof RangeError) throw error;
    return unavailableReport(input, options, error instanceof MissingDataError ? error.missing : { code: 'other', message: (error as Error).message });
  }
}

/** The job's image files, read once, for the heatmaps (videos have no still to draw under them). */
async function mediaImages(mediaDir: string, jobId: string, paths: Iterable<string>): Promise<(stimulus: string) => MediaImage | null> {
  const images = new Map<string, MediaImage>();
  for (const path of paths) {
    const type = mediaType(path, null);
    if (type?.kind !== 'image') continue;
    const bytes = await readFile(join(mediaDir, jobId, path)).catch(() => null);
    if (bytes) images.set(path, { bytes: new Uint8Array(bytes), mimeType: type.mime });
  }
  return (stimulus) => images.get(stimulus) ?? null;
}

/** An answer the protocol's adapter cannot read says what the study lacks (e.g. a media without its level). */
function studyError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new JobReportError((error as Error).message);
  }
}

const isCheckStimulus = (spec: string) => (JSON.parse(spec) as { check?: unknown }).check !== undefined;

async function* filter<T>(rows: AsyncIterable<T>, keep: (row: T) => boolean): AsyncGenerator<T> {
  for await (const row of rows) if (keep(row)) yield row;
}

async function* mapDefined<T, U>(rows: AsyncIterable<T>, map: (row: T) => U | undefined): AsyncGenerator<U> {
  for await (const row of rows) {
    const value = map(row);
    if (value !== undefined) yield value;
  }
}

async function* flatMap<T, U>(rows: AsyncIterable<T>, map: (row: T) => U[]): AsyncGenerator<U> {
  for await (const row of rows) yield* map(row);
}
