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
import type { AnalysisFamily, RatingScreening, TimingRule } from './types.js';

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

/**
 * Session screening done before the analysis (a stored job's quality control, README "Quality control"): how many
 * sessions each rule kept, and each observer's failed rules. The analysis only reports it.
 */
export interface QualityControlSummary {
  /** Rejected sessions were left out of the analysis (the default), or kept (--include-rejected). */
  rejectedExcluded: boolean;
  sessions: { completed: number; accepted: number; rejected: number; notJudged: number; incomplete: number };
  rules: Array<{ rule: string; passed: number; failed: number; notApplicable: number }>;
  observers: Array<{ observer: string; verdict: 'accepted' | 'rejected' | 'not judged' | 'incomplete'; failed: Array<{ rule: string; detail: string }> }>;
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
  /** Quality control of the sessions, when the votes come from a stored job. */
  quality: QualityControlSummary | null;
}

export type RatingReport = ReportHeader & { family: 'rating' } & Omit<RatingResult, 'notes' | 'warnings' | 'counts'>;
/** `scenes`: each scene's own analysis when the votes name scenes (empty otherwise). */
export type PairedReport = ReportHeader & { family: 'paired' } & PairedResult & { scenes: Array<{ scene: string } & PairedResult> };
export type MldsReport = ReportHeader & { family: 'mlds' | 'triplet' } & MldsResult;
/** `images` (data URLs per `stimulus/media`) are drawn under the heatmaps and left out of report.json. */
export type BubbleReport = ReportHeader & { family: 'bubble' } & Omit<BubbleResult, 'counts'> & { images?: Record<string, string> };
export type PiifaceReport = ReportHeader & { family: 'piiface' } & Omit<PiifaceResult, 'counts'>;

export type Report = RatingReport | PairedReport | MldsReport | BubbleReport | PiifaceReport;
