import { uninterruptedPlays, videoFrameFaults } from '../../analysis/timing/timing.js';
import type { PresentationRecordBody, TimingEnvelope } from '../../contract/payloads.js';

/**
 * What the export says about an answer's frame timing (docs/timing.md). A step is *timed* when it
 * showed media for a requested number of frames; it was *exact* when it ended on its duration after exactly that
 * many frames, or when the participant ended it earlier by clicking (an ACR image). An answer is exact when every
 * timed step of every play was, no frame was dropped while media were on screen, and no clip frame was skipped or
 * kept beyond its cadence (the stage's own count of what it drew; the element's presentedFrames is never read).
 */

export interface TimingSummary {
  timing_plays: number | null;
  requested_frames: number | null;
  shown_frames: number | null;
  dropped_frames: number | null;
  timing_exact: boolean | null;
  onset_epoch_ms: number | null;
  /** Clip frames the stage drew, skipped, and kept beyond their cadence, over the last play's videos; null without one. */
  video_frames_drawn: number | null;
  video_frames_skipped: number | null;
  video_frames_repeated: number | null;
  /** 'stage-clock' or 'element-timed' (the fallback), 'mixed' when the videos differ; null without a video. */
  video_timing: string | null;
  /** The device pixel ratio and the window (CSS px) when the answer was given. */
  pixel_ratio: number | null;
  window_width: number | null;
  window_height: number | null;
  /** How the last play's media were drawn (docs/pixels.md); distinct values, space-separated. */
  media_scaling: string | null;
  media_scale: string | null;
  media_filter: string | null;
  /** Every media of every play drawn pixel-exact (whole scale, nearest, whole device pixels); null when unrecorded. */
  pixels_exact: boolean | null;
  /** 1 + the plays the stage interrupted (each played again from its start); null without an envelope. */
  attempt: number | null;
  /** Why each interrupted play stopped, space-separated (hidden, context-lost, display-changed…); null when none. */
  interruptions: string | null;
}

export const TIMING_SUMMARY_COLUMNS = [
  'timing_plays',
  'requested_frames',
  'shown_frames',
  'dropped_frames',
  'timing_exact',
  'onset_epoch_ms',
  'video_frames_drawn',
  'video_frames_skipped',
  'video_frames_repeated',
  'video_timing',
  'pixel_ratio',
  'window_width',
  'window_height',
  'media_scaling',
  'media_scale',
  'media_filter',
  'pixels_exact',
  'attempt',
  'interruptions',
] as const;

const NO_TIMING: TimingSummary = {
  timing_plays: null,
  requested_frames: null,
  shown_frames: null,
  dropped_frames: null,
  timing_exact: null,
  onset_epoch_ms: null,
  ...videoColumns([]),
  pixel_ratio: null,
  window_width: null,
  window_height: null,
  ...pixelColumns([]),
  pixels_exact: null,
  attempt: null,
  interruptions: null,
};

type PixelColumns = Pick<TimingSummary, 'media_scaling' | 'media_scale' | 'media_filter'>;

function distinct(values: ReadonlyArray<string | number>): string | null {
  return values.length === 0 ? null : [...new Set(values.map(String))].join(' ');
}

/** How these steps' media were drawn: distinct scalings, scales and filters (records before them give nulls). */
function pixelColumns(steps: readonly PresentationRecordBody[]): PixelColumns {
  const items = steps.flatMap((r) => r.items ?? []);
  return { media_scaling: distinct(items.map((i) => i.scaling)), media_scale: distinct(items.map((i) => i.scale)), media_filter: distinct(items.map((i) => i.filter)) };
}

/** Drawn with each media pixel on k×k whole device pixels, none resampled. */
function pixelsExact(records: readonly PresentationRecordBody[]): boolean | null {
  const items = records.flatMap((r) => r.items ?? []);
  if (items.length === 0) return null;
  const whole = (n: number) => Number.isInteger(n);
  return items.every((i) => i.filter === 'nearest' && whole(i.scale) && [i.device.x, i.device.y, i.device.width, i.device.height].every(whole));
}

type VideoColumns = Pick<TimingSummary, 'video_frames_drawn' | 'video_frames_skipped' | 'video_frames_repeated' | 'video_timing'>;

/** The stage's counts over these steps' videos (records from pages before the count give nulls). */
function videoColumns(steps: readonly PresentationRecordBody[]): VideoColumns {
  const videos = steps.flatMap((r) => r.videos ?? []).filter((v) => v.drawnFrames !== undefined);
  if (videos.length === 0) return { video_frames_drawn: null, video_frames_skipped: null, video_frames_repeated: null, video_timing: null };
  const faults = videoFrameFaults(videos);
  const timings = new Set(videos.map((v) => v.timing));
  return {
    video_frames_drawn: videos.reduce((n, v) => n + (v.drawnFrames ?? 0), 0),
    video_frames_skipped: videos.some((v) => v.skippedFrames === null) ? null : faults.skipped,
    video_frames_repeated: videos.some((v) => v.repeatedFrames === null) ? null : faults.repeated,
    video_timing: timings.size === 1 ? (videos[0].timing ?? null) : 'mixed',
  };
}

const showsMedia = (r: PresentationRecordBody) => r.media.length > 0;

export function stepExact(r: PresentationRecordBody): boolean {
  if (r.droppedFrames > 0) return false;
  const video = videoFrameFaults(r.videos);
  if (video.skipped > 0 || video.repeated > 0) return false;
  if (r.requestedFrames === null) return true;
  return r.endedBy === 'click' ? r.shownFrames <= r.requestedFrames : r.shownFrames === r.requestedFrames;
}

/**
 * The timing envelope of an answer: its `timing` column, or for ratings stored by pages before the envelope had
 * its own field, the version-1 records those pages put in `logs` ({v: 1, presentations, refreshMs, timeOrigin}).
 */
export function parseTiming(timing: string | null, logs: string | null = null): TimingEnvelope | null {
  const parse = (text: string) => {
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      return null;
    }
  };
  const value = timing !== null ? parse(timing) : logs !== null && logs.trimStart().startsWith('{') ? parse(logs) : null;
  if (value?.v === 2 && Array.isArray(value.plays)) return value as unknown as TimingEnvelope;
  if (value?.v === 1 && Array.isArray(value.presentations)) {
    return { ...(value as object), v: 2, plays: value.presentations, timeOrigin: Number(value.timeOrigin) || 0 } as unknown as TimingEnvelope;
  }
  return null;
}

/**
 * Summary of an answer's timing. Frame counts are those of the last play (the one answered), summed over its
 * timed steps; exactness and dropped frames cover every play; the onset is the last play's first media step.
 */
export function timingSummary(envelope: TimingEnvelope | null): TimingSummary {
  if (!envelope) return NO_TIMING;
  const last = envelope.plays.at(-1) ?? [];
  const timed = last.filter((r) => showsMedia(r) && r.requestedFrames !== null);
  // Plays the stage interrupted were played again: their cut-short steps do not make the answer inexact, unless
  // the answered play is one of them.
  const media = uninterruptedPlays(envelope.plays).flat().filter(showsMedia);
  const causes = envelope.plays.flatMap((play) => play.flatMap((r) => r.interrupted?.cause ?? []));
  const lastInterrupted = last.at(-1)?.endedBy === 'interrupted';
  const firstShown = last.find(showsMedia);
  return {
    timing_plays: envelope.plays.length,
    requested_frames: timed.length > 0 ? timed.reduce((n, r) => n + r.requestedFrames!, 0) : null,
    shown_frames: timed.length > 0 ? timed.reduce((n, r) => n + r.shownFrames, 0) : null,
    dropped_frames: media.reduce((n, r) => n + r.droppedFrames, 0),
    timing_exact: !lastInterrupted && media.every(stepExact),
    onset_epoch_ms: firstShown ? Math.round((envelope.timeOrigin + firstShown.onsetMs) * 1000) / 1000 : null,
    ...videoColumns(last),
    pixel_ratio: firstShown?.pixelRatio ?? envelope.window?.pixelRatio ?? null,
    window_width: envelope.window?.inner.width ?? null,
    window_height: envelope.window?.inner.height ?? null,
    ...pixelColumns(last.filter(showsMedia)),
    pixels_exact: pixelsExact(media),
    attempt: envelope.attempt ?? 1,
    interruptions: causes.length > 0 ? causes.join(' ') : null,
  };
}

/** One export row per presentation step: the full record, for researchers who filter step by step. */
export interface PresentationRow {
  play_no: number;
  step_no: number;
  label: string;
  media: string;
  requested_frames: number | null;
  shown_frames: number;
  rendered_frames: number | null;
  dropped_frames: number;
  onset_ms: number;
  offset_ms: number;
  onset_epoch_ms: number;
  ended_by: string | null;
  refresh_ms: number;
  scale: number | null;
  exact: boolean;
  video_frames_drawn: number | null;
  video_frames_skipped: number | null;
  video_frames_repeated: number | null;
  video_timing: string | null;
  pixel_ratio: number | null;
  media_scaling: string | null;
  media_scale: string | null;
  media_filter: string | null;
  /** Each media's device rectangle, `x,y,width,height`, space-separated in the order of `media`. */
  device_rects: string | null;
  /** Why the stage stopped drawing during this step (ended_by 'interrupted'), and the refreshes drawn before. */
  interrupted: string | null;
  interrupted_after_frames: number | null;
}

export const PRESENTATION_COLUMNS = [
  'play_no',
  'step_no',
  'label',
  'media',
  'requested_frames',
  'shown_frames',
  'rendered_frames',
  'dropped_frames',
  'onset_ms',
  'offset_ms',
  'onset_epoch_ms',
  'ended_by',
  'refresh_ms',
  'scale',
  'exact',
  'video_frames_drawn',
  'video_frames_skipped',
  'video_frames_repeated',
  'video_timing',
  'pixel_ratio',
  'media_scaling',
  'media_scale',
  'media_filter',
  'device_rects',
  'interrupted',
  'interrupted_after_frames',
] as const;

export function presentationRows(envelope: TimingEnvelope | null): PresentationRow[] {
  if (!envelope) return [];
  return envelope.plays.flatMap((play, playNo) =>
    play.map((r, stepNo) => ({
      play_no: playNo,
      step_no: stepNo,
      label: r.label,
      media: r.media.join(' '),
      requested_frames: r.requestedFrames,
      shown_frames: r.shownFrames,
      rendered_frames: r.renderedFrames ?? null,
      dropped_frames: r.droppedFrames,
      onset_ms: r.onsetMs,
      offset_ms: r.offsetMs,
      onset_epoch_ms: Math.round((envelope.timeOrigin + r.onsetMs) * 1000) / 1000,
      ended_by: r.endedBy ?? null,
      refresh_ms: r.refreshMs,
      scale: r.scale ?? null,
      exact: stepExact(r),
      ...videoColumns([r]),
      pixel_ratio: r.pixelRatio ?? null,
      ...pixelColumns([r]),
      device_rects: r.items ? r.items.map(({ device: d }) => `${d.x},${d.y},${d.width},${d.height}`).join(' ') : null,
      interrupted: r.interrupted?.cause ?? null,
      interrupted_after_frames: r.interrupted?.refreshes ?? null,
    })),
  );
}
