/**
 * The report: what was run (header) and the results of one family, flat at the top level of report.json
 * (e.g. `stimuli[]`, `observers[]`, `p910` for ratings; `scale[]` for paired and MLDS).
 */
import type { VoteCounts } from './collect.js';
import type { BubbleResult } from './bubble/bubble.js';
import type { MldsResult } from './mlds/mlds.js';
import type { PairedResult } from './paired/paired.js';
import type { PiifaceResult } from './piiface/piiface.js';
import type { RatingResult } from './rating/rating.js';
import type { TimingResult } from './timing/timing.js';
import type { ViewsResult } from './views/views.js';
import type { NoResults } from './missing.js';
import type { StoppingSummary } from './precision.js';
import type { AdaptiveDesignSummary } from './asap/plan.js';
import type { AnalysisFamily, QualityControlSummary, RatingScreening, TimingRule } from './types.js';

export interface ResolvedOptions {
  seed: number;
  resamples: number;
  excludeFlagged: boolean;
  screening: RatingScreening;
  correlationThreshold: number;
  varianceThreshold: number;
  anchor: string | null;
  pairedOutliers: boolean;
  bubbleSigma: number | null;
  bubbleCell: number;
  timingRule: TimingRule;
}

/** A part of the report that could not be computed, and what data it lacks. */
export interface MissingSection {
  section: string;
  /** What is missing, in English words. */
  missing: string;
  /** The same as facts, which the console words in its language (src/analysis/missing.ts). */
  because: NoResults;
}

export interface ReportHeader {
  tool: { name: string; version: string };
  generatedAt: string;
  protocol: string;
  family: AnalysisFamily;
  source: string | null;
  options: ResolvedOptions;
  /** Votes read, flagged, excluded (flagged, with excludeFlagged) and skipped (unusable), and observers. */
  votes: VoteCounts & { observers: number };
  /** What the data cannot support (one stimulus or observer, separated or disconnected data…), shown first. */
  warnings: string[];
  /** Methods and standards, in one line each, as printed in the report. */
  methods: string[];
  /** Warnings and choices that depend on the data (bridged graphs, rejections, non-convergence…). */
  notes: string[];
  timing: TimingResult | null;
  /** 3D objects in inspect mode: per stimulus, inspection time, viewpoint coverage and zoom (null when none). */
  views: ViewsResult | null;
  /** Quality control of the sessions, when the votes come from a stored job. */
  quality: QualityControlSummary | null;
  /** The study's stopping rule for precision (quality.stopWhen): reached by how many stimuli, and when it closed the job. */
  stopping: StoppingSummary | null;
  /** An adaptive design (design asap): each participant's comparisons were chosen at arrival. */
  design: AdaptiveDesignSummary | null;
}

/**
 * A stored job's report when its data are too few for the family's methods: the header (what was read, the
 * quality control, who was left out) and, per section, what is missing. It answers instead of failing.
 */
export type UnavailableReport = ReportHeader & { unavailable: MissingSection[] };

export type RatingReport = ReportHeader & { family: 'rating' } & Omit<RatingResult, 'notes' | 'warnings' | 'counts'>;
/** `scenes`: each scene's own analysis when the votes name scenes (empty otherwise). */
export type PairedReport = ReportHeader & { family: 'paired' } & PairedResult & { scenes: Array<{ scene: string } & PairedResult> };
export type MldsReport = ReportHeader & { family: 'mlds' | 'triplet' } & MldsResult;
/** `images` (data URLs per `stimulus/media`) are drawn under the heatmaps and left out of report.json. */
export type BubbleReport = ReportHeader & { family: 'bubble' } & Omit<BubbleResult, 'counts'> & { images?: Record<string, string> };
export type PiifaceReport = ReportHeader & { family: 'piiface' } & Omit<PiifaceResult, 'counts'>;

export type Report = RatingReport | PairedReport | MldsReport | BubbleReport | PiifaceReport;

/** Whatever `report` writes: the results, or what is missing for them. */
export type AnyReport = Report | UnavailableReport;

export function isUnavailable(report: AnyReport): report is UnavailableReport {
  return 'unavailable' in report;
}
