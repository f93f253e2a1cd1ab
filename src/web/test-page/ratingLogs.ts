import type { LogDomSizeEntry } from '../../contract/payloads.js';
import type { PresentationRecord } from '../stage/types.js';

/** The server keeps `logs` up to 256 KiB; stay safely below. */
export const MAX_RATING_LOGS_CHARS = 250_000;

export interface RatingLogs {
  /** Format version of this JSON. */
  v: 1;
  /** One list of PresentationRecord per play of the stimulus (the first, then each replay), in order. */
  presentations: PresentationRecord[][];
  /** The stage's measured refresh period, ms. */
  refreshMs: number | null;
  /** performance.timeOrigin: adds to the records' performance.now() times to get epoch ms. */
  timeOrigin: number;
  /** SPEC §3 client state: the window sizes when the answer was given. */
  window: Omit<LogDomSizeEntry, 'time'>;
  /** Why the stimulus could not be shown (a media failed to load, decode or play); researchers exclude such trials. */
  mediaError?: string;
}

/**
 * The `logs` text of a rating: the frame-timing records of every presentation, so researchers can exclude
 * mistimed trials. If an unusual number of replays makes it too long, the oldest replays are dropped (the count
 * of plays stays in nbReplay).
 */
export function ratingLogsText(logs: RatingLogs): string {
  let text = JSON.stringify(logs);
  const presentations = [...logs.presentations];
  while (text.length > MAX_RATING_LOGS_CHARS && presentations.length > 1) {
    presentations.splice(1, 1);
    text = JSON.stringify({ ...logs, presentations, truncated: true });
  }
  return text;
}
