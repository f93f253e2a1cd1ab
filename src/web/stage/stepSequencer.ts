/**
 * Onset/offset bookkeeping of one play(): given the clock's frames, decides in which frame each step starts and
 * ends, and fills its PresentationRecord. Pure (no pixi, no DOM), driven frame by frame.
 *
 * "Call on flip": a step's onset is the timestamp of the frame that first draws it; its offset is the timestamp of
 * the frame that draws what comes next (the next step, or the blank screen after the last step).
 *
 * Durations are counted in display refreshes, not in frames drawn: each frame interval counts
 * round(interval / period) refreshes, so a dropped frame counts the refreshes it spanned. A step of n
 * frames ends on the first frame at which n refreshes have gone by since its onset: without drops that is exactly
 * the n-th frame; when a frame is dropped the screen kept the step longer, so the step does not overstay.
 * `shownFrames` is that same count at the offset. The period is the clock's fit (refreshEstimate.ts), so the count
 * stays exact on long steps at any rate, and follows a change of rate.
 */
import type { StageInterruption } from './interruptions';
import { durationToFrames } from './frameClock';
import type { FrameInfo } from './frameClock';
import type { PresentationRecord, StepEnd } from './types';

export interface SequencedStep {
  label: string;
  media: string[];
  end: StepEnd;
}

export type FrameChange =
  /** Keep showing what is on screen. */
  | { kind: 'none' }
  /** Draw step `index` in this frame; `ended` is the step it replaces (null for the first). */
  | { kind: 'show'; index: number; ended: number | null }
  /** Draw the blank screen in this frame: play() is over. */
  | { kind: 'finish'; ended: number | null };

type EndReason = NonNullable<PresentationRecord['endedBy']>;

export class StepSequencer {
  readonly records: PresentationRecord[] = [];
  private current = -1;
  private requested: number | null = null;
  /** Display refreshes since the current step's onset. */
  private refreshes = 0;
  private clickAt: number | null = null;
  private released = false;
  private videosEnded = false;
  private abortRequested = false;
  private done = false;

  constructor(
    private readonly steps: readonly SequencedStep[],
    private readonly refreshMs: number,
  ) {}

  get finished(): boolean {
    return this.done;
  }

  /** Index of the step on screen, or -1 before the first frame / after the end. */
  get currentIndex(): number {
    return this.done ? -1 : this.current;
  }

  /** The page's release(): ends a 'hold' step at the next frame (endedBy 'answer'). */
  release(): void {
    if (!this.done && this.current >= 0 && this.steps[this.current].end.kind === 'hold') this.released = true;
  }

  /** A click on the stage at `timestamp` (event.timeStamp); ends a 'click' step at the next frame. */
  click(timestamp: number): void {
    const record = this.records[this.current];
    if (this.done || !record || this.steps[this.current].end.kind !== 'click') return;
    // A click before the step was drawn was not a reaction to it.
    if (timestamp < record.onsetMs || this.clickAt !== null) return;
    this.clickAt = timestamp;
    record.clickMs = timestamp;
  }

  /** Every video of the current step has ended; ends a 'video-end' step at the next frame. */
  markVideosEnded(): void {
    this.videosEnded = true;
  }

  /** End the current step at the next frame (endedBy 'abort') and show nothing after it. */
  abort(): void {
    this.abortRequested = true;
  }

  /**
   * The stage stopped drawing at `atMs` (stage/interruptions.ts): the current step ends now, counting only the
   * refreshes of the frames drawn before, and nothing follows. Returns the index of the step it ended, if any.
   */
  interrupt(cause: StageInterruption, atMs: number): number | null {
    if (this.done) return null;
    this.done = true;
    if (this.current < 0) return null;
    const record = this.records[this.current];
    record.offsetMs = atMs;
    record.shownFrames = this.refreshes;
    record.endedBy = 'interrupted';
    record.interrupted = { cause, atMs, refreshes: this.refreshes };
    return this.current;
  }

  /** The frame that drew the current step's onset finished rendering at `ms` (after a GPU sync). */
  markOnsetRendered(ms: number): void {
    const record = this.records[this.current];
    if (record && record.renderDoneMs === undefined) record.renderDoneMs = ms;
  }

  /** Called once per clock frame, before rendering; says what this frame must draw. */
  frame(frame: FrameInfo): FrameChange {
    if (this.done) return { kind: 'none' };
    let ended: number | null = null;
    if (this.current >= 0) {
      const record = this.records[this.current];
      // The interval that just ended was spent showing the current step.
      if (frame.dropped && frame.intervalMs !== null) {
        record.droppedFrames += 1;
        // The count is exact; the list keeps the first ones (a long hold on a struggling machine has many).
        if ((record.drops ??= []).length < MAX_LISTED_DROPS) record.drops.push({ atMs: frame.timestamp, intervalMs: frame.intervalMs });
      }
      const periodMs = frame.refreshMs ?? this.refreshMs;
      // A callback with the previous frame's timestamp (a browser running rAF twice in one refresh) is no refresh.
      this.refreshes += frame.intervalMs === null ? 1 : Math.round(frame.intervalMs / periodMs);
      // The clock's period sharpens with every frame: a long step's frame count follows it to its end.
      this.requested = requestedFrames(this.steps[this.current].end, periodMs, frame.refreshUncertaintyMs ?? 0);
      record.requestedFrames = this.requested;
      record.refreshMs = periodMs;
      const reason = this.endReason();
      if (reason === null) {
        record.renderedFrames = (record.renderedFrames ?? 0) + 1;
        return { kind: 'none' };
      }
      record.offsetMs = frame.timestamp;
      record.shownFrames = this.refreshes;
      record.endedBy = reason;
      ended = this.current;
    }
    const next = this.current + 1;
    if (this.abortRequested || next >= this.steps.length) {
      this.done = true;
      return { kind: 'finish', ended };
    }
    this.open(next, frame.timestamp, frame.refreshMs ?? this.refreshMs, frame.refreshUncertaintyMs ?? 0);
    return { kind: 'show', index: next, ended };
  }

  private open(index: number, timestamp: number, refreshMs: number, uncertaintyMs: number): void {
    const step = this.steps[index];
    this.current = index;
    this.refreshes = 0;
    this.clickAt = null;
    this.released = false;
    this.videosEnded = false;
    this.requested = requestedFrames(step.end, refreshMs, uncertaintyMs);
    this.records.push({
      label: step.label,
      media: [...step.media],
      requestedFrames: this.requested,
      shownFrames: 0,
      onsetMs: timestamp,
      offsetMs: timestamp,
      droppedFrames: 0,
      refreshMs,
      renderedFrames: 1,
    });
  }

  private endReason(): EndReason | null {
    if (this.abortRequested) return 'abort';
    const end = this.steps[this.current].end;
    const reached = (frames: number) => this.refreshes >= Math.max(1, frames);
    switch (end.kind) {
      case 'duration':
        return reached(this.requested ?? 1) ? 'duration' : null;
      case 'click':
        if (this.clickAt !== null) return 'click';
        return this.requested !== null && reached(this.requested) ? 'duration' : null;
      case 'hold':
        return this.released ? 'answer' : null;
      case 'video-end':
        return this.videosEnded ? 'video-end' : null;
    }
  }
}

/** Drops listed per record at most (droppedFrames counts them all). */
export const MAX_LISTED_DROPS = 1000;

/** Frames a step asks for: its duration, or a click step's maximum; null when it waits for an answer or a video. */
function requestedFrames(end: StepEnd, refreshMs: number, uncertaintyMs: number): number | null {
  if (end.kind === 'duration') return durationToFrames(end.ms, refreshMs, uncertaintyMs);
  if (end.kind === 'click' && end.maxMs !== undefined) return durationToFrames(end.maxMs, refreshMs, uncertaintyMs);
  return null;
}
