/**
 * Presentation timing quality, for every protocol: per trial, whether each timed step was shown exactly the
 * frames it asked for and whether frames were dropped; per observer, a summary. The rule is configurable and
 * `flagTrial` is what the job path uses to set `flagged` on votes.
 */
import type { PresentationRecord, TimingRule, TimingTrial, VideoDrawn, VoteSource } from '../types.js';

export const DEFAULT_TIMING_RULE: TimingRule = { exactFrames: true, maxDroppedFrames: 0 };

export interface TrialFlag {
  observer: string;
  trial: string;
  flagged: boolean;
  /** e.g. "target: 10 of 12 frames", "mask: 2 dropped frames". */
  reasons: string[];
}

export interface TimingObserver {
  observer: string;
  trials: number;
  flaggedTrials: number;
  /** Timed steps (requestedFrames ≠ null) and those shown exactly as requested. */
  timedSteps: number;
  exactSteps: number;
  droppedFrames: number;
  /** Clip frames the stage skipped, and clip frames it kept beyond their cadence (stage-counted video records). */
  skippedVideoFrames: number;
  repeatedVideoFrames: number;
}

export interface TimingResult {
  rule: TimingRule;
  trials: number;
  flaggedTrials: number;
  observers: TimingObserver[];
  /** Flagged trials only (all trials would be one row per answer). */
  flagged: TrialFlag[];
}

/** Skipped and repeated clip frames of a step's videos, as the stage counted them (0 where a record has no count). */
/**
 * The plays of an answer that the stage did not interrupt (docs/timing.md, interruptions): an
 * interrupted play was played again from its start, so its cut-short steps are no fault of the trial's timing.
 */
export function uninterruptedPlays<T extends { endedBy?: string }>(plays: ReadonlyArray<readonly T[]>): T[][] {
  return plays.filter((play) => play.at(-1)?.endedBy !== 'interrupted').map((play) => [...play]);
}

export function videoFrameFaults(videos: readonly VideoDrawn[] | undefined): { skipped: number; repeated: number } {
  let skipped = 0;
  let repeated = 0;
  for (const video of videos ?? []) {
    skipped += video.skippedFrames ?? 0;
    repeated += video.repeatedFrames ?? 0;
  }
  return { skipped, repeated };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Why a trial's timing is doubtful ([] = fine). A timed step must be shown exactly its requested frames, except a
 * step the participant ended by clicking (an ACR image: shown for the display time or until a click), which may be
 * shorter; more dropped frames than the rule allows in any step flag the trial too, and so does a video clip frame
 * that the stage skipped or kept beyond its cadence (judder a rater may judge).
 */
export function flagTrial(presentations: readonly PresentationRecord[], rule: TimingRule = DEFAULT_TIMING_RULE): string[] {
  const reasons: string[] = [];
  for (const step of presentations) {
    const exact = step.endedBy === 'click' ? step.shownFrames <= step.requestedFrames! : step.shownFrames === step.requestedFrames;
    if (rule.exactFrames && step.requestedFrames !== null && !exact) {
      reasons.push(`${step.label}: ${step.shownFrames} of ${step.requestedFrames} frames`);
    }
    if (step.droppedFrames > rule.maxDroppedFrames) reasons.push(`${step.label}: ${step.droppedFrames} dropped frame${step.droppedFrames > 1 ? 's' : ''}`);
    if (rule.exactFrames) {
      for (const video of step.videos ?? []) {
        const { skipped, repeated } = videoFrameFaults([video]);
        if (skipped > 0 || repeated > 0) reasons.push(`${step.label}: ${video.media} ${plural(skipped, 'skipped clip frame')}, ${plural(repeated, 'repeated clip frame')}`);
      }
    }
  }
  return reasons;
}

/**
 * Timing summaries built one trial at a time: `analyseTiming` feeds it from a stream, and a stored job's report
 * feeds it while it reads the votes (one pass over the answers; the flag of each vote is what `add` returns).
 */
export class TimingAccumulator {
  private observers = new Map<string, TimingObserver>();
  private flagged: TrialFlag[] = [];
  private trials = 0;
  constructor(readonly rule: TimingRule = DEFAULT_TIMING_RULE) {}

  /** Adds a trial; returns why it is flagged ([] = fine). */
  add(trial: TimingTrial): string[] {
    this.trials++;
    const summary = this.observers.get(trial.observer) ?? {
      observer: trial.observer,
      trials: 0,
      flaggedTrials: 0,
      timedSteps: 0,
      exactSteps: 0,
      droppedFrames: 0,
      skippedVideoFrames: 0,
      repeatedVideoFrames: 0,
    };
    summary.trials++;
    for (const step of trial.presentations) {
      if (step.requestedFrames !== null) {
        summary.timedSteps++;
        if (step.shownFrames === step.requestedFrames) summary.exactSteps++;
      }
      summary.droppedFrames += step.droppedFrames;
      const video = videoFrameFaults(step.videos);
      summary.skippedVideoFrames += video.skipped;
      summary.repeatedVideoFrames += video.repeated;
    }
    const reasons = flagTrial(trial.presentations, this.rule);
    if (reasons.length > 0) {
      summary.flaggedTrials++;
      this.flagged.push({ observer: trial.observer, trial: trial.trial, flagged: true, reasons });
    }
    this.observers.set(trial.observer, summary);
    return reasons;
  }

  result(): TimingResult {
    return { rule: this.rule, trials: this.trials, flaggedTrials: this.flagged.length, observers: [...this.observers.values()], flagged: this.flagged };
  }
}

export async function analyseTiming(source: VoteSource<TimingTrial>, rule: TimingRule = DEFAULT_TIMING_RULE): Promise<TimingResult> {
  const timing = new TimingAccumulator(rule);
  for await (const trial of source as AsyncIterable<TimingTrial>) timing.add(trial);
  return timing.result();
}
