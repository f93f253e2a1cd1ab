/**
 * Input shapes of the analysis: long-format votes, one object per answer, independent of the database.
 * The CSV reader (`votes-csv.ts`) and the stored-job path both produce these. This module imports none: the
 * estimators and report-types.ts build on it. (`AnalysisInput`, which also carries the timing and views
 * accumulators, is analyse.ts's.)
 */

export type AnalysisFamily = 'rating' | 'paired' | 'mlds' | 'triplet' | 'bubble' | 'piiface';

/** Sync or async source of votes; the estimators read it once, in one pass. */
export type VoteSource<T> = AsyncIterable<T> | Iterable<T>;

interface VoteCommon {
  observer: string;
  /** The trial had a timing problem (see `timing/`); dropped when `excludeFlagged` is set. */
  flagged?: boolean;
}

/** ACR, DSIS, acceptability: one score on the reporting scale (ACR: 5 = Excellent … 1 = Bad). */
export interface RatingVote extends VoteCommon {
  stimulus: string;
  score: number;
  condition?: string | null;
  content?: string | null;
  /** Hidden reference of its content (ACR-HR): DMOS pairs each PVS with the reference of the same content. */
  isReference?: boolean;
}

/** Pair comparison: the observer preferred `winner`, which is `a` or `b`. */
export interface PairedVote extends VoteCommon {
  a: string;
  b: string;
  winner: string;
  /** Scene (content) of the pair: each scene is also scaled and screened on its own (pwcmp's `scene`). */
  scene?: string | null;
}

/** MLDS quadruple: response 1 when the pair (s3, s4) looked more different than (s1, s2), else 0. */
export interface QuadrupleVote extends VoteCommon {
  s1: number;
  s2: number;
  s3: number;
  s4: number;
  response: 0 | 1;
}

/** MLDS triad: pairs (s1, s2) and (s2, s3); response 1 when (s2, s3) looked more different. */
export interface TripletVote extends VoteCommon {
  s1: number;
  s2: number;
  s3: number;
  response: 0 | 1;
}

/** One mouse sample of a bubble recording: stimulus pixels, milliseconds from the media onset. */
export interface BubbleSample {
  x: number;
  y: number;
  t: number;
}

/** One bubble screening of one media (A or B) by one observer. */
export interface BubbleScreening extends VoteCommon {
  stimulus: string;
  media: 'A' | 'B';
  /** Image size in stimulus pixels (the grid of the heatmap). */
  width: number;
  height: number;
  /** Radius of the sharp window, in stimulus pixels (the default smoothing σ). */
  radius: number;
  samples: readonly BubbleSample[];
  /** Length of the recording (media shown) in ms, when known: the last sample weighs until then. */
  durationMs?: number | null;
  /** The answer stored with the screening (emotion mode: emotion index + 1). */
  rating?: number | null;
  /** Gold emotion index (0..6) when known; with `rating` it gives the recognition accuracy. */
  expectedEmotion?: number | null;
}

/** Piiface: `answer` = (emotion + 1) · 10 + (confidence + 1), e.g. 42 = Happiness, Fairly confident. */
export interface PiifaceVote extends VoteCommon {
  stimulus: string;
  /** Emotion index 0..6 expected for the stimulus, null when unknown. */
  expectedEmotion: number | null;
  answer: number;
}

/** One presentation step of a trial, as the web client records it (extra fields are ignored). */
export interface PresentationRecord {
  label: string;
  /** Frames asked for a timed step; null when the step ends on a click or at the end of a video. */
  requestedFrames: number | null;
  shownFrames: number;
  droppedFrames: number;
  endedBy?: string;
  /** What the stage drew of each video (counted by the stage; records from older pages lack the counts). */
  videos?: readonly VideoDrawn[];
}

/** The stage's count of one video's frames in one step (stage/types.ts VideoFrameRecord). */
export interface VideoDrawn {
  media: string;
  timing?: 'stage-clock' | 'element-timed';
  drawnFrames?: number;
  skippedFrames?: number | null;
  repeatedFrames?: number | null;
}

/** Timing records of one trial (one answer) of one observer. */
export interface TimingTrial {
  observer: string;
  /** Identifies the trial within the observer's session, e.g. the stimulus id. */
  trial: string;
  presentations: readonly PresentationRecord[];
}

/** An image shown under a bubble heatmap: a data URL (`data:image/png;base64,…`) or raw bytes. */
export type MediaImage = { dataUrl: string } | { bytes: Uint8Array; mimeType: string };

/** Which sessions a stored job's report keeps beyond the default (`--include rejected|excluded`). */
export interface ReportInclusion {
  /** Keep sessions rejected for payment (failed checks, straight-lining, answers too fast). */
  rejected: boolean;
  /** Keep sessions excluded for technical reasons (timing, media errors, fullscreen, visual tests). */
  excluded: boolean;
}

/**
 * Session screening done before the analysis (a stored job's quality control, docs/quality.md): both
 * verdicts of each session (payment, analysis), what each rule decided, and which sessions the report kept. The
 * analysis only reports it.
 */
export interface QualityControlSummary {
  include: ReportInclusion;
  /** `kept`: sessions whose answers are in this report (incomplete and unjudged ones included). */
  sessions: { completed: number; approved: number; rejected: number; included: number; excluded: number; notJudged: number; incomplete: number; kept: number };
  rules: Array<{ rule: string; words: string; decides: 'payment' | 'analysis'; passed: number; failed: number; notApplicable: number }>;
  observers: Array<{
    observer: string;
    payment: 'approve' | 'reject' | 'not judged' | 'incomplete';
    analysis: 'include' | 'exclude' | 'not judged' | 'incomplete';
    inReport: boolean;
    failed: Array<{ rule: string; decides: 'payment' | 'analysis'; reason: string }>;
  }>;
}

/** Which observers feed the MOS table and the P.910 model of a rating study. */
export type RatingScreening = 'none' | 'bt500' | 'p913' | 'correlation';

export interface TimingRule {
  /** A timed step (requestedFrames ≠ null) must be shown exactly requestedFrames frames (default true). */
  exactFrames: boolean;
  /** More dropped frames than this in any step flags the trial (default 0: any drop flags it). */
  maxDroppedFrames: number;
}

export interface ProgressEvent {
  task: string;
  done: number;
  total: number;
}

export interface AnalysisOptions {
  /** Seed of every resampling (bootstrap); reported. Default 1. */
  seed?: number;
  /** Bootstrap resamples (paired, MLDS). Default 1,000. */
  resamples?: number;
  /** Drop votes whose `flagged` is true (timing problems). Default false. */
  excludeFlagged?: boolean;
  /** Rating: observers kept for the MOS table and the P.910 model. Default 'none' (all observers). */
  screening?: RatingScreening;
  /** Rating: correlation screening threshold before the mean − SD rule (sureal, P.910 crowd). Default 0.7. */
  correlationThreshold?: number;
  /** Rating: straight-lining when an observer's rating variance is below this (P.910 crowd). Default 0.15. */
  varianceThreshold?: number;
  /** Paired: stimulus fixed at 0 JOD (pwcmp 'fix0'); default null = mean of the scale at 0 (pwcmp 'mean0'). */
  anchor?: string | null;
  /** Paired: pwcmp's leave-one-observer-out outlier scores (one refit per observer). Default true. */
  pairedOutliers?: boolean;
  /** Bubble: σ of the Gaussian smoothing in stimulus pixels; default null = each screening's window radius. */
  bubbleSigma?: number | null;
  /** Bubble: heatmap cell size in stimulus pixels. Default 4. */
  bubbleCell?: number;
  timingRule?: Partial<TimingRule>;
  /** Long computations report here (the CLI prints to stderr). */
  onProgress?: (event: ProgressEvent) => void;
  /** Date printed in the report (tests fix it). Default now. */
  generatedAt?: Date;
}
