/**
 * One video playing during one step: starts it, logs its presented frames with our own
 * requestVideoFrameCallback (Pixi's VideoSource registers one too but drops the metadata), watches for its end,
 * errors and stalls, and rewinds it when the step is over so a replay starts from the first frame.
 */
import { StageMediaError } from './errors';
import type { VideoFrameRecord } from './types';

/** A playing video whose time has not moved for this long is reported as stalled. */
const STALL_MS = 5000;

interface FrameMeta {
  presentedFrames: number;
  mediaTime: number;
  expectedDisplayTime: number;
}

export class VideoRun {
  ended = false;
  private first: FrameMeta | null = null;
  private last: FrameMeta | null = null;
  private frameCallback: number | null = null;
  private lastMediaTime = -1;
  private lastProgressAt: number | null = null;
  private stopped = false;

  constructor(
    readonly media: string,
    private readonly video: HTMLVideoElement,
    private readonly onEnded: () => void,
    private readonly onError: (error: StageMediaError) => void,
  ) {}

  start(): void {
    const video = this.video;
    video.addEventListener('ended', this.handleEnded);
    video.addEventListener('error', this.handleError);
    this.requestFrame();
    video.play().catch((error: unknown) => {
      if (!this.stopped) this.onError(new StageMediaError(this.media, 'video', 'play', String(error)));
    });
  }

  /** Called every clock frame while playing; reports a stall once. */
  checkProgress(now: number): void {
    if (this.ended || this.stopped) return;
    const time = this.video.currentTime;
    if (time !== this.lastMediaTime || this.lastProgressAt === null) {
      this.lastMediaTime = time;
      this.lastProgressAt = now;
    } else if (now - this.lastProgressAt > STALL_MS) {
      this.stopped = true;
      this.onError(new StageMediaError(this.media, 'video', 'stalled', `no progress at ${time.toFixed(3)} s`));
    }
  }

  /** Pause, rewind, and return what was presented. */
  stop(): VideoFrameRecord {
    this.stopped = true;
    const video = this.video;
    video.removeEventListener('ended', this.handleEnded);
    video.removeEventListener('error', this.handleError);
    if (this.frameCallback !== null && 'cancelVideoFrameCallback' in video) video.cancelVideoFrameCallback(this.frameCallback);
    this.frameCallback = null;
    video.pause();
    video.currentTime = 0;
    const { first, last } = this;
    return {
      media: this.media,
      presentedFrames: first && last ? last.presentedFrames - first.presentedFrames + 1 : 0,
      firstMediaTime: first?.mediaTime ?? null,
      lastMediaTime: last?.mediaTime ?? null,
      firstExpectedDisplayTime: first?.expectedDisplayTime ?? null,
      lastExpectedDisplayTime: last?.expectedDisplayTime ?? null,
    };
  }

  private requestFrame(): void {
    if (!('requestVideoFrameCallback' in this.video)) return;
    this.frameCallback = this.video.requestVideoFrameCallback((_now, meta) => {
      if (this.stopped) return;
      const frame = { presentedFrames: meta.presentedFrames, mediaTime: meta.mediaTime, expectedDisplayTime: meta.expectedDisplayTime };
      this.first ??= frame;
      this.last = frame;
      this.requestFrame();
    });
  }

  private readonly handleEnded = () => {
    this.ended = true;
    this.onEnded();
  };

  private readonly handleError = () => {
    const error = this.video.error;
    this.onError(new StageMediaError(this.media, 'video', 'play', error?.message || `MediaError ${error?.code ?? '?'}`));
  };
}
