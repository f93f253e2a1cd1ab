/**
 * One video playing during one step, in one of two ways:
 * - ClipRun (the stage clock): the ClipPlayer's frames are drawn by the stage's frame clock, the frame due at each
 *   refresh; the step ends exactly after the last frame's refreshes.
 * - ElementRun (the fallback, "element-timed"): a <video> element plays and Pixi uploads whatever frame it holds;
 *   the stage counts what it drew from the mediaTime of the frame in the texture at each clock frame (our own
 *   requestVideoFrameCallback), never from the element's presentedFrames.
 * Both count refreshes from the onset (a dropped display frame counts those it spanned) and hand what was drawn
 * to a CadenceTracker, which writes the record.
 */
import { CadenceTracker, cadenceRateHz, frameDueAt, frameStarts, refreshesIn } from './clipCadence';
import type { ClipTimeline } from './clipCadence';
import type { ClipPlayer } from './clipPlayer';
import { StageMediaError } from './errors';
import type { FrameInfo } from './frameClock';
import type { VideoFrameRecord } from './types';

/** A playing video whose frames have not moved for this long is reported as stalled. */
const STALL_MS = 5000;

export abstract class VideoRun {
  ended = false;
  /** Refreshes since the onset (0 in the onset frame). */
  protected refresh = 0;
  protected lastTimestamp = 0;
  protected stopped = false;
  protected readonly tracker: CadenceTracker;
  protected readonly starts: number[] | null;
  private lastProgressAt: number | null = null;
  private lastProgressFrame = -1;

  constructor(
    readonly media: string,
    timeline: ClipTimeline | null,
    protected readonly refreshMs: number,
    protected readonly onEnded: () => void,
    protected readonly onError: (error: StageMediaError) => void,
  ) {
    this.starts = timeline ? frameStarts(timeline, cadenceRateHz(refreshMs)) : null;
    this.tracker = new CadenceTracker(this.starts);
  }

  /** In the onset frame: playing starts (frame 0 is on screen). */
  abstract start(frame: FrameInfo): void;

  /** Every later clock frame, before the step's end is decided: count the refreshes this frame stands for. */
  tick(frame: FrameInfo): void {
    if (this.stopped) return;
    this.refresh += refreshesIn(frame.intervalMs, this.refreshMs);
    this.lastTimestamp = frame.timestamp;
  }

  /** The step is still on screen in this frame: draw (or note) the clip frame; true when the texture changed. */
  abstract draw(frame: FrameInfo): boolean;

  /** The step ended in the frame just ticked (or the play was cut short): stop, and the record of what was drawn. */
  stop(): VideoFrameRecord {
    this.stopped = true;
    return { media: this.media, timing: this.timing, ...this.tracker.finish(this.refresh, this.lastTimestamp) };
  }

  protected abstract readonly timing: VideoFrameRecord['timing'];

  /** Reports a stall once when the clip frame on screen has not changed for STALL_MS while the clip is not over. */
  protected checkProgress(frameShown: number, now: number, detail: string): void {
    if (this.ended || this.stopped) return;
    if (frameShown !== this.lastProgressFrame || this.lastProgressAt === null) {
      this.lastProgressFrame = frameShown;
      this.lastProgressAt = now;
    } else if (now - this.lastProgressAt > STALL_MS) {
      this.stopped = true;
      this.onError(new StageMediaError(this.media, 'video', 'stalled', detail));
    }
  }
}

/** The stage-clock path: the clip frame due at each refresh, from the decoder's queue. */
export class ClipRun extends VideoRun {
  protected readonly timing = 'stage-clock' as const;

  constructor(
    media: string,
    private readonly player: ClipPlayer,
    refreshMs: number,
    onEnded: () => void,
    onError: (error: StageMediaError) => void,
  ) {
    super(media, player.timeline, refreshMs, onEnded, onError);
  }

  start(frame: FrameInfo): void {
    this.lastTimestamp = frame.timestamp;
    // The decode-ahead grows now rather than when frame 1 is due: a 60 fps clip wants frame 1 at the next refresh.
    this.player.startPlaying();
    this.tracker.drew(0, this.player.shownIndex, frame.timestamp);
  }

  override tick(frame: FrameInfo): void {
    super.tick(frame);
    if (this.stopped || this.ended) return;
    // The clip is over once its last frame has had its refreshes: the step ends in this very frame.
    if (this.refresh >= this.starts!.at(-1)!) {
      this.ended = true;
      this.onEnded();
    }
  }

  draw(frame: FrameInfo): boolean {
    if (this.stopped || this.ended) return false;
    const player = this.player;
    if (player.error) {
      this.stopped = true;
      this.onError(new StageMediaError(this.media, 'video', 'play', player.error.message));
      return false;
    }
    const due = frameDueAt(this.starts!, this.refresh);
    const changed = player.show(due);
    this.tracker.drew(this.refresh, player.shownIndex, frame.timestamp);
    if (player.shownIndex < due) this.checkProgress(player.shownIndex, frame.timestamp, `frame ${due} not decoded`);
    else this.checkProgress(-1 - this.refresh, frame.timestamp, '');
    return changed;
  }

  override stop(): VideoFrameRecord {
    const record = super.stop();
    this.player.rewind();
    return record;
  }
}

interface FrameMeta {
  mediaTime: number;
}

/** The fallback: the element plays on its own clock; the stage counts the frames it drew by their mediaTime. */
export class ElementRun extends VideoRun {
  protected readonly timing = 'element-timed' as const;
  private latest: FrameMeta | null = null;
  private frameCallback: number | null = null;
  private readonly mediaTimes: number[] | null;

  constructor(
    media: string,
    private readonly video: HTMLVideoElement,
    timeline: ClipTimeline | null,
    refreshMs: number,
    onEnded: () => void,
    onError: (error: StageMediaError) => void,
  ) {
    super(media, timeline, refreshMs, onEnded, onError);
    this.mediaTimes = timeline ? [...timeline.timestamps] : null;
  }

  start(frame: FrameInfo): void {
    const video = this.video;
    this.lastTimestamp = frame.timestamp;
    video.addEventListener('ended', this.handleEnded);
    video.addEventListener('error', this.handleError);
    this.requestFrame();
    // Frame 0 was uploaded at prepare(): it is what the onset frame draws.
    this.tracker.drew(0, 0, frame.timestamp);
    video.play().catch((error: unknown) => {
      if (!this.stopped) this.onError(new StageMediaError(this.media, 'video', 'play', String(error)));
    });
  }

  draw(frame: FrameInfo): boolean {
    if (this.stopped) return false;
    const shown = this.latest ? this.frameOf(this.latest.mediaTime) : 0;
    this.tracker.drew(this.refresh, shown, frame.timestamp);
    if (!this.ended) this.checkProgress(Math.round(this.video.currentTime * 1e6), frame.timestamp, `no progress at ${this.video.currentTime.toFixed(3)} s`);
    return true;
  }

  /** Pause, rewind, and return what was drawn. */
  override stop(): VideoFrameRecord {
    const record = super.stop();
    const video = this.video;
    video.removeEventListener('ended', this.handleEnded);
    video.removeEventListener('error', this.handleError);
    if (this.frameCallback !== null && 'cancelVideoFrameCallback' in video) video.cancelVideoFrameCallback(this.frameCallback);
    this.frameCallback = null;
    video.pause();
    video.currentTime = 0;
    return record;
  }

  /** The clip frame a mediaTime shows: the nearest container timestamp; unknown timeline: the time in microseconds. */
  private frameOf(mediaTime: number): number {
    const times = this.mediaTimes;
    if (!times) return Math.round(mediaTime * 1e6);
    let lo = 0;
    let hi = times.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      // Containers round timestamps (WebM: to the millisecond); frames are at least 8 ms apart.
      if (times[mid] <= mediaTime + 0.002) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private requestFrame(): void {
    if (!('requestVideoFrameCallback' in this.video)) return;
    // Pixi's VideoSource uploads in its own callback for the same frame, before the clock's rAF: at each clock
    // frame the texture holds the frame of the latest callback.
    this.frameCallback = this.video.requestVideoFrameCallback((_now, meta) => {
      if (this.stopped) return;
      this.latest = { mediaTime: meta.mediaTime };
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
