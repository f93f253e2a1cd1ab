/**
 * Errors the stage reports to the flow. No pixi.js import: the flow may import this file from the first bundle
 * (or just test `error.name === 'StageMediaError'`).
 */
import type { StageInterruption } from './interruptions';
import type { PresentationRecord } from './types';

export type StageMediaFailure =
  /** The media lookup has no such media (its download failed). */
  | 'missing'
  /** The browser cannot decode it (unsupported codec/format, corrupt file). */
  | 'decode'
  /** HTMLVideoElement.play() rejected, or the video raised an error while playing. */
  | 'play'
  /** A video stopped making progress long before its end. */
  | 'stalled';

/**
 * A media the stage cannot show. prepare() and play() reject with it.
 * When `mediaKind` is 'video', the flow shows "Sorry, your browser doesn't support embedded videos.".
 */
export class StageMediaError extends Error {
  override readonly name = 'StageMediaError';

  constructor(
    readonly media: string,
    readonly mediaKind: 'image' | 'video' | 'model' | 'unknown',
    readonly reason: StageMediaFailure,
    detail?: string,
    /** Records of the steps shown before the failure (play() only; set when play() rejects). */
    public records: PresentationRecord[] = [],
  ) {
    super(`Cannot show ${mediaKind} "${media}" (${reason})${detail ? `: ${detail}` : ''}`);
  }
}

export function isStageMediaError(error: unknown): error is StageMediaError {
  return error instanceof Error && error.name === 'StageMediaError';
}

/**
 * A play the stage stopped because it could no longer draw (stage/interruptions.ts): play() rejects with it, the
 * records of what was drawn attached (the interrupted step's names the cause and counts only what was drawn).
 */
export class StageInterruptedError extends Error {
  override readonly name = 'StageInterruptedError';

  constructor(
    readonly interruption: StageInterruption,
    readonly records: PresentationRecord[],
  ) {
    super(`the stage stopped drawing: ${interruption}`);
  }
}

export function isStageInterrupted(error: unknown): error is StageInterruptedError {
  return error instanceof Error && error.name === 'StageInterruptedError';
}
