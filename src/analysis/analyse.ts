/** Entry point: long-format votes of one protocol family → a Report (what was run, and the results). */
import { stoppingMethod, type StoppingSummary } from './precision.js';
import { adaptiveDesignMethod, type AdaptiveDesignSummary } from './asap/plan.js';
import { readFileSync } from 'node:fs';
import { analyseBubble } from './bubble/bubble.js';
import { collectMldsTrials, fitMlds } from './mlds/mlds.js';
import { analysePaired } from './paired/paired.js';
import { collectPairedScenes } from './paired/paired-data.js';
import { analysePiiface } from './piiface/piiface.js';
import { missingSentence, noResultsInWords, type MissingData, type NoResults } from './missing.js';
import { createRandom } from './random.js';
import { analyseRating } from './rating/rating.js';
import type { Report, ReportHeader, ResolvedOptions, UnavailableReport } from './report-types.js';
import { analyseTiming, DEFAULT_TIMING_RULE, TimingAccumulator, type TimingResult } from './timing/timing.js';
import type {
  AnalysisOptions,
  BubbleScreening,
  MediaImage,
  PairedVote,
  PiifaceVote,
  QualityControlSummary,
  QuadrupleVote,
  RatingVote,
  TimingTrial,
  TripletVote,
  VoteSource,
} from './types.js';
import { VIEW_CELLS, type ViewsAccumulator } from './views/views.js';
import { mldsWarnings, pairedWarnings } from './warnings.js';

interface InputCommon {
  /** Protocol name as stored in the job (e.g. `absolute_category_rating`); printed in the report. */
  protocol: string;
  /** What the votes came from (file name, job id); printed in the report. */
  source?: string;
  /**
   * Per-trial timing records, summarised in the report's timing section: a stream read before the votes, or a
   * TimingAccumulator that reading the votes fills (a stored job's single pass over its answers).
   */
  timing?: VoteSource<TimingTrial> | TimingAccumulator;
  /** Camera poses of 3D objects, filled as the votes are read (a stored job); summarised in the report. */
  views?: ViewsAccumulator;
  /** The sessions' quality control, printed in the report (the votes already reflect what it excluded). */
  quality?: QualityControlSummary;
  /** The study's stopping rule for precision and whether it fired (a stored job with quality.stopWhen). */
  stopping?: StoppingSummary;
  /** An adaptive design's summary (a stored job with design asap): which comparisons were asked is data-driven. */
  design?: AdaptiveDesignSummary;
}

/** What analyse() reads: the votes of one family, and what the report prints beside them (timing, views, quality). */
export type AnalysisInput =
  | (InputCommon & { family: 'rating'; votes: VoteSource<RatingVote> })
  | (InputCommon & { family: 'paired'; votes: VoteSource<PairedVote> })
  | (InputCommon & { family: 'mlds'; votes: VoteSource<QuadrupleVote> })
  | (InputCommon & { family: 'triplet'; votes: VoteSource<TripletVote> })
  | (InputCommon & {
      family: 'bubble';
      votes: VoteSource<BubbleScreening>;
      /** Image per stimulus and media, drawn under its heatmap. */
      images?: (stimulus: string, media: 'A' | 'B') => MediaImage | null | undefined;
    })
  | (InputCommon & { family: 'piiface'; votes: VoteSource<PiifaceVote> });

export const DEFAULT_SEED = 1;
export const DEFAULT_RESAMPLES = 1000;

let cachedVersion: string | null = null;
/** Glimpse's version from package.json (printed in every report). */
export function toolVersion(): string {
  if (cachedVersion === null) {
    try {
      cachedVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown';
    } catch {
      cachedVersion = 'unknown';
    }
  }
  return cachedVersion;
}

export function resolveOptions(options: AnalysisOptions): ResolvedOptions {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  if (!Number.isInteger(resamples) || resamples < 0) throw new RangeError(`resamples must be a non-negative integer, got ${resamples}`);
  const seed = options.seed ?? DEFAULT_SEED;
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  const cell = options.bubbleCell ?? 4;
  if (!(cell > 0)) throw new RangeError(`bubbleCell must be positive, got ${cell}`);
  if (options.bubbleSigma !== undefined && options.bubbleSigma !== null && !(options.bubbleSigma >= 0)) {
    throw new RangeError(`bubbleSigma must be ≥ 0, got ${options.bubbleSigma}`);
  }
  return {
    seed,
    resamples,
    excludeFlagged: options.excludeFlagged ?? false,
    screening: options.screening ?? 'none',
    correlationThreshold: options.correlationThreshold ?? 0.7,
    varianceThreshold: options.varianceThreshold ?? 0.15,
    anchor: options.anchor ?? null,
    pairedOutliers: options.pairedOutliers ?? true,
    bubbleSigma: options.bubbleSigma ?? null,
    bubbleCell: cell,
    timingRule: { ...DEFAULT_TIMING_RULE, ...options.timingRule },
  };
}

function dataUrl(image: MediaImage): string {
  return 'dataUrl' in image ? image.dataUrl : `data:${image.mimeType};base64,${Buffer.from(image.bytes).toString('base64')}`;
}

const METHODS = {
  rating: [
    'MOS per stimulus: mean, sample SD (n − 1), SE = SD/√n; ci95 = MOS ± 1.95996·SE (normal, as sureal), ci95_t = MOS ± t(0.975, n − 1)·SE.',
    'Per condition: the votes of all stimuli of the condition pooled (P.910 crowd toolkit votes_per_condition).',
    'DMOS (ACR-HR, ITU-T P.910): MOS(PVS) − MOS(hidden reference of the same content) + 5 (sureal DmosModel); dmosClipped = min(DMOS, 5) (P.910 crowd toolkit).',
    'Screening, each method alone on all observers: ITU-R BT.500-14 Annex 1 §2.3.1 (β2 kurtosis, 2σ or √20σ band, P/Q counts; sureal SR_MOS); ITU-T P.913 bias removal then the same (sureal BR_SR_MOS); P.910 crowd rules: Pearson and Spearman r with the MOS ≤ min(0.7, mean(r) − SD(r)) (sureal SR_MOS_PCC/SRCC) or rating variance < 0.15 (straight-lining).',
    'ITU-T P.910 (2023) Annex E / P.913 §12.6 subject model by alternating projection (sureal MLE_CO_AP2): quality ± 1.95996·SE, bias ± 1.95996·SE, inconsistency with a χ² interval.',
    'With the P.913 screening applied, the MOS is of the bias-removed votes (vote − observer bias δ; sureal BR_SR_MOS).',
    'Pairwise significance between conditions (or stimuli): Welch’s two-sample t-test, two-sided, Holm-corrected over all pairs (adjusted p < 0.05).',
  ],
  paired: [
    'Thurstone Case V maximum likelihood in JOD (σ = 1.4826: 1 JOD = 75 % preference), with pwcmp’s distance prior and its bridging of disconnected comparison graphs (pwcmp pw_scale); mean 0 (pwcmp mean0) or the anchor at 0 (fix0).',
    'Bradley–Terry maximum likelihood, P(i beats j) = 1/(1 + e^−(θi − θj)), same gauge; an L2 penalty (α = 0.01) only when the MLE does not exist (Ford’s condition fails), and then said so.',
    '95 % CIs: bootstrap resampling observers with replacement (pwcmp pw_scale_bootstrp), percentile intervals (MATLAB prctile rule).',
    'Outliers: pwcmp pw_outlier_analysis — each observer’s log10 likelihood per compared pair under the scale fitted without them; flagged when dist_L = (Q1 − L)/IQR > 1.5.',
    'Scenes (when the votes name them): each scene scaled, bootstrapped and screened on its own, as pwcmp; the pooled scale ignores the scene.',
    'Identification: within each connected part, groups of stimuli that no vote orders against (strongly connected components of the “beats” graph) are reported; the distances between them are not identified by the data.',
  ],
  mlds: [
    'MLDS (Knoblauch & Maloney 2008, R package MLDS, method "glm"): probit GLM without intercept, design +1 s1, −1 s2, −1 s3, +1 s4 (quadruples) or +1, −2, +1 (triads), lowest level fixed at 0, σ = 1, fitted by IRLS.',
    'CIs: parametric bootstrap as boot.mlds (responses redrawn from the fitted probabilities); ci95 = ψ ± 1.96·bootstrap SD, percentile interval also given; the 0–1 scale ψ/ψmax with its percentile interval.',
    'Converged when the deviance changes by < 1e-14 relatively (glm.fit) and every ψ moved by < 1e-12; separation (fitted probabilities numerically 0 or 1) is reported with the levels whose SE > 100. AIC = −2 logLik + 2 (levels − 1).',
  ],
  bubble: [
    'Dwell heatmaps: each mouse sample weighs the time until the next; the last until the end of the recording when known, else the recording’s median interval.',
    'Grid cells of the given size (stimulus pixels), Gaussian smoothing σ = the window radius unless set (BubbleView blurs click maps likewise), peak = densest smoothed cell; displayed scaled to the peak.',
    'Coverage: share of the image revealed by the window at least once per screening, averaged. Emotion accuracy: rating − 1 = expected emotion.',
  ],
  piiface: [
    'Answer = (emotion + 1)·10 + (confidence + 1). Confusion matrix over trials with a known expected emotion; accuracy per expected emotion, per confidence level (calibration) and per stimulus.',
  ],
};

/** What the report says of the sessions left out, and how to keep them. */
function qualityNotes(quality: QualityControlSummary | undefined | null): string[] {
  if (!quality) return [];
  const s = quality.sessions;
  const kept = (kept: boolean, flag: string) => (kept ? `kept (--include ${flag})` : `left out (--include ${flag} keeps them)`);
  const notes = [
    `Quality control: of ${s.completed} completed sessions, ${s.approved} approved and ${s.rejected} rejected for payment; ${s.included} included in the analysis and ${s.excluded} excluded. ${s.kept} sessions are in this report.`,
  ];
  const rejected = quality.observers.filter((o) => o.payment === 'reject').length;
  const technical = quality.observers.filter((o) => o.failed.some((f) => f.decides === 'analysis')).length;
  if (rejected > 0) notes.push(`Rejected sessions: ${rejected}, ${kept(quality.include.rejected, 'rejected')}.`);
  if (technical > 0) notes.push(`Sessions excluded for technical reasons: ${technical}, ${kept(quality.include.excluded, 'excluded')}.`);
  if (s.notJudged > 0) notes.push(`${s.notJudged} completed sessions have no verdict yet (run \`cli screen\`); they are included.`);
  if (s.incomplete > 0) notes.push(`${s.incomplete} sessions were not completed; their answers are included.`);
  return notes;
}

/** The report's header: what was run on which votes, with the notes that depend on the data. */
function reportHeader(input: AnalysisInput, options: AnalysisOptions, resolved: ResolvedOptions, timing: TimingResult | null, methods: string[], notes: string[], votes: ReportHeader['votes'], warnings: string[] = []): ReportHeader {
  const views = input.views?.result() ?? null;
  if (views) methods = [...methods, VIEWS_METHOD];
  if (input.design) methods = [...methods, adaptiveDesignMethod(input.design)];
  if (input.stopping) methods = [...methods, stoppingMethod(input.stopping)];
  return {
    tool: { name: 'Glimpse', version: toolVersion() },
    generatedAt: (options.generatedAt ?? new Date()).toISOString(),
    protocol: input.protocol,
    family: input.family,
    source: input.source ?? null,
    options: resolved,
    votes,
    warnings,
    methods: timing ? [...methods, `Timing: a trial is flagged when a timed step was not shown exactly its requested frames${resolved.timingRule.exactFrames ? '' : ' (rule off)'} or had more than ${resolved.timingRule.maxDroppedFrames} dropped frames.`] : methods,
    notes: [...notes, ...(timing && timing.flaggedTrials > 0 ? [`${timing.flaggedTrials} of ${timing.trials} trials had timing problems.`] : []), ...qualityNotes(input.quality)],
    timing,
    views,
    quality: input.quality ?? null,
    stopping: input.stopping ?? null,
    design: input.design ?? null,
  };
}

const VIEWS_METHOD =
  `3D objects in inspect mode: each camera pose weighs the time until the next pose of its play (the last, the play's median interval); inspection time = their sum; coverage = time per ${VIEW_CELLS.azimuthDeg}° azimuth × ${VIEW_CELLS.elevationDeg}° elevation cell (azimuth wrapped to 0–360°); azimuth range = largest − smallest unwrapped azimuth (at most 360°); zoom = time-weighted percentiles of the camera distance (1 = fitted to the object).`;

/** How the report tells its reader to keep the sessions left out: the CLI's flags, and its own section. */
const KEEP_WITH_FLAGS = { rejected: '`--include rejected`', excluded: '`--include excluded`', see: 'Observers kept and why' };

/**
 * A stored job's report when its votes are too few for the family's methods (`analyse` found `missing`): the votes
 * read, the quality control and, per section, what is missing (in words, and as facts the console words in its
 * language), so the report answers instead of failing.
 */
export function unavailableReport(input: AnalysisInput, options: AnalysisOptions, missing: MissingData): UnavailableReport {
  const resolved = resolveOptions(options);
  const timing = input.timing instanceof TimingAccumulator ? input.timing.result() : null;
  const read = timing?.trials ?? 0;
  const q = input.quality;
  const because: NoResults = { missing, leftOut: q ? q.sessions.completed + q.sessions.incomplete - q.sessions.kept : 0 };
  const family = input.family === 'triplet' ? 'mlds' : input.family;
  return {
    ...reportHeader(input, options, resolved, timing, METHODS[family], [noResultsInWords(because, 'en', KEEP_WITH_FLAGS)], { read, flagged: 0, excluded: 0, skipped: 0, observers: q ? q.sessions.kept : 0 }),
    unavailable: [{ section: 'Results', missing: missingSentence(because, 'en', KEEP_WITH_FLAGS), because }],
  };
}

export async function analyse(input: AnalysisInput, options: AnalysisOptions = {}): Promise<Report> {
  const resolved = resolveOptions(options);
  const source = input.timing;
  const streamed = source && !(source instanceof TimingAccumulator) ? await analyseTiming(source, resolved.timingRule) : null;
  // An accumulator is complete once the votes are read, i.e. when the header is made (after the family's analysis).
  const header = (methods: string[], notes: string[], votes: ReportHeader['votes'], warnings: string[] = []): ReportHeader =>
    reportHeader(input, options, resolved, source instanceof TimingAccumulator ? source.result() : streamed, methods, notes, votes, warnings);
  const random = createRandom(resolved.seed);

  switch (input.family) {
    case 'rating': {
      const { notes, warnings, counts, ...result } = await analyseRating(input.votes, resolved);
      return { ...header(METHODS.rating, notes, { ...counts, observers: result.observers.length }, warnings), family: 'rating', ...result };
    }
    case 'paired': {
      const { pooled: data, scenes } = await collectPairedScenes(input.votes, resolved.excludeFlagged);
      const settings = { prior: 'pwcmp' as const, anchor: resolved.anchor, resamples: resolved.resamples, random, outliers: resolved.pairedOutliers };
      const result = analysePaired(data, { ...settings, onProgress: options.onProgress });
      const warnings = pairedWarnings(result, data.observers.length);
      // pwcmp scales and screens each scene on its own: an observer odd in one scene may look ordinary pooled.
      const perScene = scenes.map(({ scene, data: sceneData }) => {
        const onProgress = options.onProgress && ((e: { task: string; done: number; total: number }) => options.onProgress!({ ...e, task: `${e.task} (scene ${scene})` }));
        const anchor = resolved.anchor !== null && sceneData.stimuli.includes(resolved.anchor) ? resolved.anchor : null;
        if (resolved.anchor !== null && anchor === null) warnings.push(`The anchor ${resolved.anchor} is not compared in scene ${scene}: that scene's scale has mean 0 instead.`);
        const sceneResult = { scene, ...analysePaired(sceneData, { ...settings, anchor, onProgress }) };
        warnings.push(...pairedWarnings(sceneResult, sceneData.observers.length, `scene ${scene}`));
        return sceneResult;
      });
      return {
        ...header(METHODS.paired, [...pairedNotes(result), ...sceneNotes(perScene)], { ...data.counts, observers: data.observers.length }, warnings),
        family: 'paired',
        ...result,
        scenes: perScene,
      };
    }
    case 'mlds':
    case 'triplet': {
      const trials = await collectMldsTrials(input.votes, input.family === 'mlds' ? 'quadruple' : 'triad', resolved.excludeFlagged);
      const result = fitMlds(trials, resolved.resamples, random, options.onProgress);
      const notes: string[] = [];
      if (result.reordered > 0) notes.push(`${result.reordered} trials were written high → low and were put in order (${input.family === 'mlds' ? 'within each pair' : 'triad reversed, response flipped'}).`);
      if (result.nonConvergedResamples > 0) notes.push(`${result.nonConvergedResamples} bootstrap resamples did not converge (kept, as boot.mlds keeps them).`);
      return { ...header(METHODS.mlds, notes, { ...trials.counts, observers: trials.observers }, mldsWarnings(result)), family: input.family, ...result };
    }
    case 'bubble': {
      const { counts, ...result } = await analyseBubble(input.votes, { excludeFlagged: resolved.excludeFlagged, sigma: resolved.bubbleSigma, cell: resolved.bubbleCell });
      const images: Record<string, string> = {};
      for (const m of result.media) {
        const image = input.images?.(m.stimulus, m.media);
        if (image) images[`${m.stimulus}/${m.media}`] = dataUrl(image);
      }
      const notes = result.sizeMismatches > 0 ? [`${result.sizeMismatches} screenings gave another image size than the first of their media; the first was used.`] : [];
      return {
        ...header(METHODS.bubble, notes, { ...counts, observers: result.observers }),
        family: 'bubble',
        ...result,
        images,
      };
    }
    case 'piiface': {
      const { counts, ...result } = await analysePiiface(input.votes, resolved.excludeFlagged);
      const notes = counts.skipped > 0 ? [`${counts.skipped} answers were not valid two-digit piiface answers and were skipped.`] : [];
      return { ...header(METHODS.piiface, notes, { ...counts, observers: result.observers }), family: 'piiface', ...result };
    }
  }
}

function sceneNotes(scenes: Array<{ scene: string } & ReturnType<typeof analysePaired>>): string[] {
  if (scenes.length === 0) return [];
  const notes = [`Votes name ${scenes.length} scenes: each scene is also scaled, bootstrapped and screened for outliers on its own (scenes.csv, scene-observers.csv); the pooled scale above ignores the scene.`];
  for (const s of scenes) {
    const outliers = s.observers.filter((o) => o.outlier);
    if (outliers.length > 0) notes.push(`Scene ${s.scene}: possible outliers (dist_L > 1.5): ${outliers.map((o) => o.observer).join(', ')}.`);
  }
  return notes;
}

function pairedNotes(result: ReturnType<typeof analysePaired>): string[] {
  const notes: string[] = [];
  if (result.components > 1) {
    notes.push(
      `The comparison graph has ${result.components} disconnected parts; as pwcmp does, their best stimuli were linked by one tie each (${result.bridges.map((b) => `${b.a}–${b.b}`).join(', ')}). Scores across parts are not comparable.`,
    );
  }
  if (result.bridgedResamples > 0) notes.push(`${result.bridgedResamples} of ${result.resamples} bootstrap resamples had a disconnected graph and were bridged the same way.`);
  if (result.btPenalized) notes.push('Bradley–Terry: the MLE does not exist (some stimulus never won or never lost within its part of the graph); the penalised fit (α = 0.01) is reported.');
  if (result.penalizedResamples > 0) notes.push(`Bradley–Terry: ${result.penalizedResamples} bootstrap resamples needed the penalty.`);
  const outliers = result.observers.filter((o) => o.outlier);
  if (outliers.length > 0) notes.push(`Possible outliers (dist_L > 1.5): ${outliers.map((o) => o.observer).join(', ')}. They are kept; rerun without them to exclude them.`);
  return notes;
}
