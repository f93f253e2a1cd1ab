import { describe, expect, it } from 'vitest';
import type { PresentationRecordBody, TimingEnvelope } from '../../contract/payloads.js';
import { presentationRows, timingSummary } from './timing.js';

const step = { label: 'V', media: ['a.mp4'], requestedFrames: null, shownFrames: 60, onsetMs: 1000, offsetMs: 2000, droppedFrames: 0, refreshMs: 16.67, endedBy: 'video-end' as const };
const clip = { media: 'a.mp4', timing: 'stage-clock' as const, frames: 30, drawnFrames: 30, skippedFrames: 0, repeatedFrames: 0, firstFrame: 0, firstOnsetMs: 1000, lastFrame: 29, lastOnsetMs: 1966.7, lastOffsetMs: 2000 };
const envelope = (videos: object[]): TimingEnvelope => ({ v: 2, plays: [[{ ...step, videos }]], refreshMs: 16.67, timeOrigin: 0 }) as unknown as TimingEnvelope;

describe('export timing columns of a video step', () => {
  it('an exact clip: drawn frames counted by the stage, exact', () => {
    expect(timingSummary(envelope([clip]))).toMatchObject({ timing_exact: true, video_frames_drawn: 30, video_frames_skipped: 0, video_frames_repeated: 0, video_timing: 'stage-clock' });
  });

  it('skipped or repeated clip frames make the answer inexact and are counted', () => {
    const judder = { ...clip, timing: 'element-timed', drawnFrames: 29, skippedFrames: 1, repeatedFrames: 2 };
    expect(timingSummary(envelope([judder]))).toMatchObject({ timing_exact: false, video_frames_drawn: 29, video_frames_skipped: 1, video_frames_repeated: 2, video_timing: 'element-timed' });
    expect(presentationRows(envelope([judder, clip]))[0]).toMatchObject({ exact: false, video_frames_drawn: 59, video_frames_skipped: 1, video_frames_repeated: 2, video_timing: 'mixed' });
  });

  it("a record from a page before the stage's count: the element's presentedFrames is not read", () => {
    expect(timingSummary(envelope([{ media: 'a.mp4', presentedFrames: 75, firstMediaTime: 0, lastMediaTime: 2.96, firstExpectedDisplayTime: 1, lastExpectedDisplayTime: 2 }]))).toMatchObject({
      timing_exact: true,
      video_frames_drawn: null,
      video_frames_skipped: null,
      video_timing: null,
    });
  });
});

describe('export pixel columns (docs/pixels.md)', () => {
  const pair = (scale: number, filter: 'nearest' | 'linear', x: number) => ({
    ...step,
    label: 'AB',
    media: ['a.png', 'b.png'],
    pixelRatio: 2.5,
    items: [
      { media: 'a.png', scaling: 'integer' as const, scale, filter, device: { x, y: 40, width: 320 * scale, height: 240 * scale } },
      { media: 'b.png', scaling: 'integer' as const, scale, filter, device: { x: x + 700, y: 40, width: 320 * scale, height: 240 * scale } },
    ],
  });
  const withWindow = (records: object[]): TimingEnvelope =>
    ({ v: 2, plays: [records], refreshMs: 16.67, timeOrigin: 0, window: { inner: { width: 1536, height: 730 }, pixelRatio: 2.5 } }) as unknown as TimingEnvelope;

  it('the ratio, the window and each media scale and filter, exact when every pixel is whole', () => {
    expect(timingSummary(withWindow([pair(2, 'nearest', 100)]))).toMatchObject({
      pixel_ratio: 2.5,
      window_width: 1536,
      window_height: 730,
      media_scaling: 'integer',
      media_scale: '2',
      media_filter: 'nearest',
      pixels_exact: true,
    });
    expect(presentationRows(withWindow([pair(2, 'nearest', 100)]))[0]).toMatchObject({ pixel_ratio: 2.5, media_scale: '2', device_rects: '100,40,640,480 800,40,640,480' });
  });

  it('a fitted, filtered media is not exact; records before the field give nulls', () => {
    expect(timingSummary(withWindow([pair(0.75, 'linear', 100)]))).toMatchObject({ media_scale: '0.75', media_filter: 'linear', pixels_exact: false });
    expect(timingSummary(envelope([clip]))).toMatchObject({ pixel_ratio: null, media_scale: null, pixels_exact: null });
  });
});

describe('interrupted plays (issue 36)', () => {
  const shown = (label: string, extra: Partial<PresentationRecordBody> = {}): PresentationRecordBody => ({
    label,
    media: ['a.png'],
    requestedFrames: 60,
    shownFrames: 60,
    onsetMs: 1000,
    offsetMs: 2000,
    droppedFrames: 0,
    refreshMs: 1000 / 60,
    endedBy: 'duration',
    ...extra,
  });
  const cut = shown('A', { shownFrames: 19, endedBy: 'interrupted', interrupted: { cause: 'context-lost', atMs: 1316, refreshes: 19 } });
  const withPlays = (plays: PresentationRecordBody[][], attempt: number): TimingEnvelope => ({
    v: 2,
    plays,
    refreshMs: 1000 / 60,
    timeOrigin: 0,
    window: { inner: { width: 1280, height: 720 }, outer: { width: 1280, height: 800 }, screen: { width: 1920, height: 1080 }, available: { width: 1920, height: 1040 }, document: { width: 1280, height: 720 }, zoom: 1, isfullScreen: false },
    attempt,
  });

  it('an interrupted play replayed exactly: the answer is exact, on its 2nd attempt, and says why', () => {
    expect(timingSummary(withPlays([[cut], [shown('A')]], 2))).toMatchObject({ timing_exact: true, shown_frames: 60, attempt: 2, interruptions: 'context-lost' });
    expect(presentationRows(withPlays([[cut], [shown('A')]], 2)).map((r) => [r.play_no, r.ended_by, r.shown_frames, r.interrupted, r.interrupted_after_frames])).toEqual([
      [0, 'interrupted', 19, 'context-lost', 19],
      [1, 'duration', 60, null, null],
    ]);
  });

  it('an answer whose last play was interrupted is not exact', () => {
    expect(timingSummary(withPlays([[cut]], 2))).toMatchObject({ timing_exact: false, attempt: 2, interruptions: 'context-lost' });
    expect(timingSummary(withPlays([[shown('A')]], 1))).toMatchObject({ timing_exact: true, attempt: 1, interruptions: null });
  });
});
