import type { TimingEnvelope } from '../../contract/payloads.js';
import type { PresentationRecord, RefreshInfo } from '../stage/types.js';
import { windowSizes } from './windowInfo.js';

/** The rating body is capped at 512 KiB by the server; the envelope stays well below. */
export const MAX_TIMING_CHARS = 250_000;

export interface TimingInput {
  /** One list of stage records per play of the stimulus (the first play, then each replay or repetition). */
  plays: PresentationRecord[][];
  /** The stage's measured refresh period, ms (NaN/undefined while unknown). */
  refreshMs: number | null | undefined;
  /** The stage's refresh estimate (StageController.refresh). */
  refresh?: RefreshInfo | null;
  /** Protocol extras (e.g. {oit: 2}). */
  extras?: Record<string, string | number>;
  /** Why the stimulus could not be shown. */
  mediaError?: string | null;
  /** performance.now() of the answer; default: when the envelope is built (the answer is being submitted). */
  answeredMs?: number;
}

/**
 * The one versioned timing envelope (contract TimingEnvelope) of an answer. If an unusual number of replays makes
 * it too long, the middle plays are dropped, keeping the first and the last (the count of plays stays in nbReplay).
 */
export function timingEnvelope(input: TimingInput, win: Window = window): TimingEnvelope {
  const envelope: TimingEnvelope = {
    v: 2,
    plays: input.plays,
    refreshMs: input.refreshMs !== undefined && input.refreshMs !== null && Number.isFinite(input.refreshMs) ? input.refreshMs : null,
    ...refreshField(input.refresh),
    timeOrigin: performance.timeOrigin,
    answeredMs: input.answeredMs ?? performance.now(),
    window: { ...windowSizes(win), pixelRatio: win.devicePixelRatio || 1 },
    ...(input.extras && Object.keys(input.extras).length > 0 ? { extras: input.extras } : {}),
    ...(input.mediaError ? { mediaError: input.mediaError.slice(0, 2000) } : {}),
    attempt: 1 + input.plays.filter(wasInterrupted).length,
  };
  return fitTiming(envelope);
}

/** A play the stage stopped (its last record ended 'interrupted'); the trial was played again from its start. */
const wasInterrupted = (play: readonly PresentationRecord[]) => play.at(-1)?.endedBy === 'interrupted';

function refreshField(refresh: RefreshInfo | null | undefined): Pick<TimingEnvelope, 'refresh'> {
  if (!refresh || !Number.isFinite(refresh.periodMs) || !Number.isFinite(refresh.uncertaintyMs)) return {};
  const { periodMs, uncertaintyMs, intervals, changes } = refresh;
  return { refresh: { periodMs, uncertaintyMs, intervals, changes: changes.slice(0, 100) } };
}

export function fitTiming(envelope: TimingEnvelope): TimingEnvelope {
  let fitted = envelope;
  while (JSON.stringify(fitted).length > MAX_TIMING_CHARS && fitted.plays.length > 2) {
    fitted = { ...fitted, plays: [fitted.plays[0]!, ...fitted.plays.slice(2)], truncated: true };
  }
  return fitted;
}
