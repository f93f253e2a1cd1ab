/**
 * Pure cadence arithmetic of a clip on the stage's clock (no pixi, no DOM, no WebCodecs):
 * - which refresh, counted from the step's onset, first shows each clip frame: clip frame k (timestamp t_k seconds
 *   after frame 0) is first on screen at refresh ceil(t_k · R), R the display rate (3, 2, 3, 2 refreshes for 24 fps
 *   at 60 Hz; exactly 2 for 30 fps);
 * - a tracker that is told, clock frame by clock frame, which clip frame the stage drew, and turns that into the
 *   clip's record: frames drawn, skipped, repeated beyond the cadence (with the refresh of each), late.
 * Both video paths use it: the stage-clock player (WebCodecs) and the element-timed fallback.
 */
import type { VideoFrameRecord } from './types';

/** A clip's presentation timestamps (seconds after its first frame, ascending) and the end of its last frame. */
export interface ClipTimeline {
  timestamps: readonly number[];
  endTime: number;
}

/**
 * Display rates a screen is sold at. The cadence uses the nearest one when the measured rate is within 1 % of it, so
 * the last digit of a measured period (rAF timestamps are coarsened to 0.1 ms) cannot move a frame boundary that a
 * 30 fps clip on a 60 Hz screen puts exactly on a refresh. A 59.94 Hz screen (not told apart from 60 Hz by a
 * coarsened period) shows a 30 fps clip at exactly 2 refreshes a frame, 0.1 % slow, as a TV does.
 */
const NOMINAL_HZ = [24, 25, 30, 48, 50, 60, 72, 75, 85, 90, 100, 120, 144, 160, 165, 170, 175, 180, 200, 240, 280, 360];
const NOMINAL_TOLERANCE = 0.01;

/** The display rate (Hz) the cadence is computed at, from the measured refresh period (ms). */
export function cadenceRateHz(refreshMs: number): number {
  const measured = 1000 / refreshMs;
  const nearest = NOMINAL_HZ.reduce((a, b) => (Math.abs(b - measured) < Math.abs(a - measured) ? b : a));
  return Math.abs(nearest - measured) / nearest <= NOMINAL_TOLERANCE ? nearest : measured;
}

/** Float slack on t · R (a timestamp of k/30 s times 60 is 2k within 1e-12, not exactly). */
const EPSILON = 1e-6;

/**
 * First refresh (from the onset, which shows frame 0) of every clip frame, and at index N the refresh that ends the
 * clip: frame k is on screen during refreshes [starts[k], starts[k + 1]).
 */
export function frameStarts(timeline: ClipTimeline, rateHz: number): number[] {
  const starts = timeline.timestamps.map((t) => Math.max(0, Math.ceil(t * rateHz - EPSILON)));
  starts.push(Math.max(starts.at(-1) ?? 0, Math.ceil(timeline.endTime * rateHz - EPSILON)));
  if (starts.length > 1) starts[starts.length - 1] = Math.max(starts[starts.length - 1], starts[starts.length - 2] + 1);
  return starts;
}

/** The clip frame due at refresh n: the last frame whose first refresh is at or before n. */
export function frameDueAt(starts: readonly number[], n: number): number {
  const frames = starts.length - 1;
  let lo = 0;
  let hi = frames - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= n) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Refreshes a clock interval spanned: 1 normally, more when the display refreshed without a new frame. */
export function refreshesIn(intervalMs: number | null, refreshMs: number): number {
  if (intervalMs === null) return 1;
  return Math.max(1, Math.round(intervalMs / refreshMs));
}

/** Entries kept per list in a record (the counts are exact). */
export const MAX_LISTED_FRAMES = 1000;

type CadenceFields = Omit<VideoFrameRecord, 'media' | 'timing'>;

/**
 * What the stage drew of one clip during one step. `starts` (frameStarts) is null when the clip's timeline is
 * unknown (a container the demuxer cannot read): then the record counts drawn frames only.
 */
export class CadenceTracker {
  /** Clock frames that drew a clip frame: refresh from the onset, the frame, the clock frame's timestamp. */
  private readonly drawings: Array<{ refresh: number; frame: number; atMs: number }> = [];

  constructor(private readonly starts: readonly number[] | null) {}

  /** The clock frame at `refresh` (from the onset) shows clip `frame`; a frame equal to the last one is a keep. */
  drew(refresh: number, frame: number, atMs: number): void {
    const last = this.drawings.at(-1);
    if (last && last.frame === frame) return;
    this.drawings.push({ refresh, frame, atMs });
  }

  /** The step ended at refresh `offsetRefresh` (the frame that drew what replaced it, at `offsetMs`). */
  finish(offsetRefresh: number, offsetMs: number): CadenceFields {
    const drawings = this.drawings;
    const first = drawings[0];
    const last = drawings.at(-1);
    const fields: CadenceFields = {
      frames: this.starts ? this.starts.length - 1 : null,
      drawnFrames: new Set(drawings.map((d) => d.frame)).size,
      skippedFrames: this.starts ? 0 : null,
      repeatedFrames: this.starts ? 0 : null,
      firstFrame: first?.frame ?? null,
      firstOnsetMs: first?.atMs ?? null,
      lastFrame: last?.frame ?? null,
      lastOnsetMs: last?.atMs ?? null,
      lastOffsetMs: last ? offsetMs : null,
    };
    const starts = this.starts;
    if (!starts) return fields;
    // Refreshes each clip frame was on screen, and the refresh it first was.
    const shown = new Map<number, { from: number; refreshes: number }>();
    drawings.forEach((d, i) => {
      const until = i + 1 < drawings.length ? drawings[i + 1].refresh : offsetRefresh;
      const entry = shown.get(d.frame) ?? { from: d.refresh, refreshes: 0 };
      entry.refreshes += Math.max(0, until - d.refresh);
      shown.set(d.frame, entry);
    });
    const skips: NonNullable<CadenceFields['skips']> = [];
    const repeats: NonNullable<CadenceFields['repeats']> = [];
    const late: NonNullable<CadenceFields['late']> = [];
    let skipped = 0;
    let repeated = 0;
    for (let k = 0; k < starts.length - 1 && starts[k] < offsetRefresh; k++) {
      const due = starts[k];
      const cadence = Math.min(starts[k + 1], offsetRefresh) - due;
      const seen = shown.get(k);
      if (!seen || seen.refreshes === 0) {
        skipped++;
        if (skips.length < MAX_LISTED_FRAMES) skips.push({ frame: k, refresh: due });
        continue;
      }
      if (seen.from > due && late.length < MAX_LISTED_FRAMES) late.push({ frame: k, refresh: due, refreshes: seen.from - due });
      if (seen.refreshes > cadence) {
        repeated++;
        if (repeats.length < MAX_LISTED_FRAMES) repeats.push({ frame: k, refresh: seen.from + cadence, refreshes: seen.refreshes - cadence });
      }
    }
    fields.skippedFrames = skipped;
    fields.repeatedFrames = repeated;
    if (skips.length > 0) fields.skips = skips;
    if (repeats.length > 0) fields.repeats = repeats;
    if (late.length > 0) fields.late = late;
    return fields;
  }
}

/** Frame rates clips are made at (NTSC rates as their exact fractions). */
const NOMINAL_FPS = [24000 / 1001, 24, 25, 30000 / 1001, 30, 48, 50, 60000 / 1001, 60, 100, 120000 / 1001, 120];
/** How far a container's timestamp may be from its exact time (WebM stores whole milliseconds). */
const TIMESTAMP_SLACK_S = 0.0015;

/**
 * A clip's timeline from its presentation timestamps (seconds, any order, any origin) and the duration of its last
 * frame (seconds; when the container gives none, the median frame interval). A clip made at a nominal frame rate
 * whose stored timestamps are rounded (WebM keeps milliseconds: 0.067 s for frame 2 of a 30 fps clip, a hair after
 * refresh 4 at 60 Hz) gets its exact times k / fps, so rounding cannot move a frame to the next refresh.
 */
export function clipTimeline(presentationTimes: readonly number[], lastDuration: number | null): ClipTimeline {
  const sorted = [...presentationTimes].sort((a, b) => a - b);
  const origin = sorted[0] ?? 0;
  const timestamps = sorted.map((t) => t - origin);
  const fps = nominalRate(timestamps);
  if (fps !== null) return { timestamps: timestamps.map((_, k) => k / fps), endTime: timestamps.length / fps };
  const intervals = timestamps.slice(1).map((t, i) => t - timestamps[i]).sort((a, b) => a - b);
  const median = intervals.length > 0 ? intervals[intervals.length >> 1] : 1 / 30;
  const last = lastDuration !== null && lastDuration > 0 ? lastDuration : median;
  return { timestamps, endTime: (timestamps.at(-1) ?? 0) + last };
}

/** The nominal frame rate whose grid k / fps holds every timestamp within the container's rounding; else null. */
function nominalRate(timestamps: readonly number[]): number | null {
  if (timestamps.length < 2) return null;
  const measured = (timestamps.length - 1) / timestamps.at(-1)!;
  for (const fps of [...NOMINAL_FPS].sort((a, b) => Math.abs(a - measured) - Math.abs(b - measured))) {
    if (Math.abs(fps - measured) / fps > 0.005) break;
    if (timestamps.every((t, k) => Math.abs(t - k / fps) <= TIMESTAMP_SLACK_S)) return fps;
  }
  return null;
}
