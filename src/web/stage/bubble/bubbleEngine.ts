/**
 * The BubbleStageController: draws one media blurred with a clear window at the latest pointer sample, from the
 * stage's frame clock (Pixi's ticker never runs). Per clock frame, in this order:
 *   1. apply a pending canvas resize;
 *   2. the StepSequencer says whether a step starts or ends in this frame (durations in frames, videos to the end);
 *   3. a video that presented a new frame since the last clock frame is blurred again (never a static image);
 *   4. the window moves to the pointer's latest sample (read now, so the frame draws the newest position);
 *   5. render only what changed: everything after a new view, media frame or size; after a window move only the
 *      union of the old and new window boxes (the canvas keeps the rest: preserveDrawingBuffer), so a frame costs
 *      in proportion to the window, not to the media; on a step onset, a 1-pixel readPixels waits for the GPU.
 * Shares the stage's EngineBase (clock, media cache, resize, probes, play lifecycle), StepSequencer and VideoRun.
 */
import { installDebugHook, withDebugFields } from '../debugHook';
import { EngineBase } from '../engineBase';
import type { EngineBaseOptions, PlayRun } from '../engineBase';
import { StageMediaError } from '../errors';
import type { FrameInfo } from '../frameClock';
import type { PreparedMedia } from '../mediaCache';
import { StepSequencer } from '../stepSequencer';
import type { PresentationRecord, Rect } from '../types';
import { VideoRun } from '../videoRun';
import { BlurCache } from './blurCache';
import { windowDamage } from './damage';
import type { Circle } from './damage';
import type { BlurredMedia } from './blurCache';
import type { DrawnWindow } from './debugHook';
import type { BubblePlayOptions, BubbleStageController, BubbleStep, BubbleView, PointerSource } from './types';
import { WindowMesh } from './windowMesh';

export interface BubbleEngineOptions extends EngineBaseOptions {
  pointer: PointerSource;
}

interface ActiveRun extends PlayRun {
  steps: BubbleStep[];
  options: BubblePlayOptions;
  video: VideoRun | null;
}

interface Shown {
  view: BubbleView;
  media: PreparedMedia;
  blurred: BlurredMedia;
}

export class BubbleEngine extends EngineBase<ActiveRun> implements BubbleStageController {
  private readonly blurs: BlurCache;
  private readonly windowMesh = new WindowMesh();
  private readonly pointer: PointerSource;
  private shown: Shown | null = null;
  private videoFrameCallback: number | null = null;
  private newVideoFrame = false;
  /** The browser has no requestVideoFrameCallback: every clock frame of a playing video counts as new. */
  private videoFramesUnknown = false;
  private drawn: DrawnWindow | null = null;

  constructor(options: BubbleEngineOptions) {
    super(options, { controller: 'BubbleStageController', label: 'bubble stage' });
    this.pointer = options.pointer;
    this.blurs = new BlurCache(this.app.renderer);
    this.app.stage.addChild(this.windowMesh.mesh);
  }

  /** Start the clock; resolves once the refresh period is measured. */
  async start(): Promise<BubbleStageController> {
    const engine = this;
    await this.warmUp(this.app.stage, (hook) =>
      installDebugHook(
        '__glimpseBubble',
        withDebugFields(hook, {
          get drawn() {
            return engine.drawn;
          },
          get blurPlan() {
            return engine.shown?.blurred.plan ?? null;
          },
        }),
      ),
    );
    return this;
  }

  async prepare(views: BubbleView[]): Promise<void> {
    await this.media.prepare(views.map((v) => v.media), this.mediaInUse());
    for (const view of views) this.blurs.get(this.media.get(view.media)!, view);
  }

  async show(view: BubbleView): Promise<void> {
    if (this.busy) throw new Error('BubbleStageController.show: a play() is running');
    await this.prepare([view]);
    this.showView(view);
    await this.probe(0, 0);
  }

  async play(steps: BubbleStep[], options: BubblePlayOptions = {}): Promise<PresentationRecord[]> {
    const views = steps.flatMap((step) => (step.view ? [step.view] : []));
    const refreshMs = await this.beginPlay(options.signal, () => this.prepare(views));
    if (refreshMs === null) return [];
    return new Promise((resolve, reject) => {
      const sequencer = new StepSequencer(
        steps.map((step) => ({ label: step.label, media: step.view ? [step.view.media] : [], end: step.end })),
        refreshMs,
      );
      this.run = { steps, sequencer, options, video: null, error: null, resolve, reject };
    });
  }

  destroy(): void {
    this.stopVideoFrames();
    this.shutDown((run) => run.video?.stop());
    this.windowMesh.destroy();
    this.blurs.destroy();
    this.media.destroy();
  }

  protected showNothing(): void {
    this.showView(null);
  }

  protected drawFrame(frame: FrameInfo): void {
    let onset = false;
    let finished: ActiveRun | null = null;
    this.applyPendingSize();
    const run = this.run;
    if (run) {
      if (run.options.signal?.aborted) run.sequencer.abort();
      run.video?.checkProgress(frame.timestamp);
      const change = run.sequencer.frame(frame);
      if (change.kind !== 'none') {
        if (change.ended !== null) this.stopVideo(run, run.sequencer.records[change.ended]);
        if (change.kind === 'show') {
          const step = run.steps[change.index];
          this.showView(step.view);
          this.startVideo(run);
          onset = true;
          run.options.onOnset?.(change.index, step.label, frame.timestamp);
        } else {
          this.showView(null);
          finished = run;
        }
      }
    }
    const video = this.shown?.media.video;
    if (video && (this.newVideoFrame || (this.videoFramesUnknown && run?.video))) {
      this.newVideoFrame = false;
      this.blurs.refresh(this.shown!.blurred);
      this.dirty = true;
    }
    const damage = this.followPointer(frame);
    const full = this.dirty || onset || this.warmingUp;
    if (full || damage) {
      if (full) this.windowMesh.drawAll();
      else this.windowMesh.drawRegion(damage!);
      this.app.renderer.render({ container: this.app.stage, clear: full });
      this.dirty = false;
      if (onset && run) this.stampOnset(run);
    }
    // The canvas keeps its last frame (preserveDrawingBuffer): a probe reads what is on screen.
    this.answerProbes();
    if (finished) this.finish(finished);
  }

  /**
   * Moves the window to the latest pointer sample (this frame draws it). Returns the canvas region the move
   * changed, or null when the window did not move (or the move changes nothing on the media).
   */
  private followPointer(frame: FrameInfo): Rect | null {
    const shown = this.shown;
    if (!shown) return null;
    const p = this.pointer();
    if (!p) return null;
    const previous = this.drawn;
    if (previous && previous.x === p.x && previous.y === p.y) return null;
    const radius = shown.view.radius > 0 ? shown.view.radius : -1;
    this.windowMesh.setWindow(p.x, p.y, radius);
    this.drawn = { x: p.x, y: p.y, frame: frame.index, frameTimestamp: frame.timestamp };
    if (radius < 0) return null;
    const from: Circle | null = previous ? { x: previous.x, y: previous.y, radius } : null;
    // Before any window was drawn the media is all blurred: only the new window's box changes.
    return windowDamage(from, { x: p.x, y: p.y, radius }, shown.view.rect);
  }

  private showView(view: BubbleView | null): void {
    this.stopVideoFrames();
    if (!view) {
      this.shown = null;
      this.windowMesh.hide();
      this.drawn = null;
      this.dirty = true;
      return;
    }
    const media = this.media.get(view.media);
    if (!media) throw new StageMediaError(view.media, 'unknown', 'missing');
    const blurred = this.blurs.get(media, view);
    this.shown = { view, media, blurred };
    this.windowMesh.setMedia(media.texture.source, blurred.texture.source, blurred.plan.uvScale, view.rect);
    // Until the pointer is known, the whole media is blurred.
    this.windowMesh.setWindow(-1e6, -1e6, -1);
    this.drawn = null;
    if (media.video) this.watchVideoFrames(media.video);
    this.dirty = true;
  }

  private watchVideoFrames(video: HTMLVideoElement): void {
    this.videoFramesUnknown = !('requestVideoFrameCallback' in video);
    if (this.videoFramesUnknown) return;
    const next = () => {
      this.videoFrameCallback = video.requestVideoFrameCallback(() => {
        this.newVideoFrame = true;
        next();
      });
    };
    next();
  }

  private stopVideoFrames(): void {
    const video = this.shown?.media.video;
    if (video && this.videoFrameCallback !== null && 'cancelVideoFrameCallback' in video) video.cancelVideoFrameCallback(this.videoFrameCallback);
    this.videoFrameCallback = null;
    this.newVideoFrame = false;
  }

  private startVideo(run: ActiveRun): void {
    const video = this.shown?.media.video;
    if (!video || !this.shown) {
      // A 'video-end' step without a video has nothing to wait for.
      run.sequencer.markVideosEnded();
      return;
    }
    run.video = new VideoRun(this.shown.view.media, video, () => run.sequencer.markVideosEnded(), this.failRun(run));
    run.video.start();
  }

  private stopVideo(run: ActiveRun, record: PresentationRecord): void {
    if (!run.video) return;
    record.videos = [run.video.stop()];
    run.video = null;
  }

  private mediaInUse(): Set<string> {
    const names = new Set(this.run?.steps.flatMap((s) => (s.view ? [s.view.media] : [])) ?? []);
    if (this.shown) names.add(this.shown.view.media);
    return names;
  }
}
