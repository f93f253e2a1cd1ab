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
 * Reuses the stage's FrameClock, MediaCache, StepSequencer and VideoRun.
 */
import { Sprite, Texture } from 'pixi.js';
import type { Application, WebGLRenderer } from 'pixi.js';
import type { Rgba } from '../debugHook';
import { StageMediaError } from '../errors';
import { FrameClock } from '../frameClock';
import type { FrameInfo, FrameScheduler } from '../frameClock';
import { MediaCache } from '../mediaCache';
import type { PreparedMedia } from '../mediaCache';
import { StepSequencer } from '../stepSequencer';
import type { MediaLookup, PresentationRecord, Rect } from '../types';
import { VideoRun } from '../videoRun';
import { BlurCache } from './blurCache';
import { windowDamage } from './damage';
import type { Circle } from './damage';
import type { BlurredMedia } from './blurCache';
import { installBubbleDebugHook } from './debugHook';
import type { DrawnWindow } from './debugHook';
import type { BubblePlayOptions, BubbleStageController, BubbleStep, BubbleView, PointerSource } from './types';
import { WindowMesh } from './windowMesh';

export interface BubbleEngineOptions {
  app: Application;
  /** Element the canvas fills; its size is the canvas size. */
  host: HTMLElement;
  lookup: MediaLookup;
  background: string;
  pointer: PointerSource;
  scheduler?: FrameScheduler;
}

interface ActiveRun {
  steps: BubbleStep[];
  sequencer: StepSequencer;
  options: BubblePlayOptions;
  video: VideoRun | null;
  error: StageMediaError | null;
  resolve(records: PresentationRecord[]): void;
  reject(error: unknown): void;
}

interface Shown {
  view: BubbleView;
  media: PreparedMedia;
  blurred: BlurredMedia;
}

interface PendingProbe {
  x: number;
  y: number;
  resolve(rgba: Rgba): void;
  reject(error: unknown): void;
}

export class BubbleEngine implements BubbleStageController {
  private readonly clock: FrameClock;
  private readonly media: MediaCache;
  private readonly blurs: BlurCache;
  private readonly windowMesh = new WindowMesh();
  private readonly app: Application;
  private readonly host: HTMLElement;
  private readonly pointer: PointerSource;
  private readonly resizeObserver: ResizeObserver;
  private shown: Shown | null = null;
  private run: ActiveRun | null = null;
  private starting = false;
  private pendingSize: { width: number; height: number } | null = null;
  private dirty = true;
  private warmingUp = false;
  private videoFrameCallback: number | null = null;
  private newVideoFrame = false;
  /** The browser has no requestVideoFrameCallback: every clock frame of a playing video counts as new. */
  private videoFramesUnknown = false;
  private drawn: DrawnWindow | null = null;
  private probes: PendingProbe[] = [];
  private lastRecords: PresentationRecord[] | null = null;
  private removeDebugHook: (() => void) | null = null;
  private destroyed = false;
  private readonly pixel = new Uint8Array(4);

  constructor(options: BubbleEngineOptions) {
    this.app = options.app;
    this.host = options.host;
    this.pointer = options.pointer;
    this.clock = new FrameClock(options.scheduler);
    this.media = new MediaCache(options.lookup, this.app.renderer);
    this.blurs = new BlurCache(this.app.renderer);
    this.app.stage.addChild(this.windowMesh.mesh);
    this.setBackground(options.background);
    Object.assign(this.app.canvas.style, { position: 'absolute', left: '0', top: '0', display: 'block' });
    this.resizeObserver = new ResizeObserver(() => this.measureHost());
    this.resizeObserver.observe(this.host);
    this.measureHost();
    this.clock.onFrame(this.onFrame);
  }

  /** Start the clock; resolves once the refresh period is measured. */
  async start(): Promise<BubbleStageController> {
    // Draw off-canvas during the warm-up so the frame cost is measured with the renderer busy.
    const warmup = new Sprite(Texture.WHITE);
    warmup.position.set(-8, -8);
    this.app.stage.addChild(warmup);
    this.warmingUp = true;
    this.clock.start();
    await this.clock.whenMeasured();
    this.warmingUp = false;
    warmup.destroy();
    this.dirty = true;
    const engine = this;
    this.removeDebugHook = installBubbleDebugHook({
      get refreshMs() {
        return engine.refreshMs;
      },
      get frameCount() {
        return engine.clock.frameCount;
      },
      get drawn() {
        return engine.drawn;
      },
      get lastRecords() {
        return engine.lastRecords;
      },
      get blurPlan() {
        return engine.shown?.blurred.plan ?? null;
      },
      size: () => this.size(),
      probe: (x, y) => this.probe(x, y),
    });
    return this;
  }

  get refreshMs(): number {
    return this.clock.refreshMs ?? Number.NaN;
  }

  size(): { width: number; height: number } {
    return this.pendingSize ?? { width: this.app.screen.width, height: this.app.screen.height };
  }

  mediaSize(media: string): { width: number; height: number } {
    const entry = this.media.get(media);
    if (!entry) throw new Error(`BubbleStageController.mediaSize("${media}"): prepare it first`);
    return { width: entry.width, height: entry.height };
  }

  async prepare(views: BubbleView[]): Promise<void> {
    await this.media.prepare(views.map((v) => v.media), this.mediaInUse());
    for (const view of views) this.blurs.get(this.media.get(view.media)!, view);
  }

  async show(view: BubbleView): Promise<void> {
    if (this.run || this.starting) throw new Error('BubbleStageController.show: a play() is running');
    await this.prepare([view]);
    this.showView(view);
    await this.probe(0, 0);
  }

  async play(steps: BubbleStep[], options: BubblePlayOptions = {}): Promise<PresentationRecord[]> {
    if (this.run || this.starting) throw new Error('BubbleStageController.play: already playing');
    if (this.destroyed) throw new Error('BubbleStageController.play: the stage is unmounted');
    if (options.signal?.aborted) return [];
    this.starting = true;
    try {
      await this.prepare(steps.flatMap((step) => (step.view ? [step.view] : [])));
    } finally {
      this.starting = false;
    }
    const refreshMs = await this.clock.whenMeasured();
    return new Promise((resolve, reject) => {
      const sequencer = new StepSequencer(
        steps.map((step) => ({ label: step.label, media: step.view ? [step.view.media] : [], end: step.end })),
        refreshMs,
      );
      this.run = { steps, sequencer, options, video: null, error: null, resolve, reject };
    });
  }

  clear(): void {
    if (this.run) this.run.sequencer.abort();
    else this.showView(null);
  }

  setBackground(color: string): void {
    this.app.renderer.background.color = color;
    this.dirty = true;
  }

  /** Read one canvas pixel (CSS px) right after the next frame renders. */
  probe(x: number, y: number): Promise<Rgba> {
    return new Promise((resolve, reject) => this.probes.push({ x, y, resolve, reject }));
  }

  destroy(): void {
    this.destroyed = true;
    this.clock.stop();
    this.resizeObserver.disconnect();
    this.removeDebugHook?.();
    this.stopVideoFrames();
    const run = this.run;
    this.run = null;
    if (run) {
      run.video?.stop();
      run.reject(new DOMException('The bubble stage was unmounted during play()', 'AbortError'));
    }
    this.probes.splice(0).forEach((p) => p.reject(new DOMException('The bubble stage was unmounted', 'AbortError')));
    this.windowMesh.destroy();
    this.blurs.destroy();
    this.media.destroy();
  }

  private readonly onFrame = (frame: FrameInfo): void => {
    let onset = false;
    let finished: ActiveRun | null = null;
    if (this.pendingSize) {
      this.app.renderer.resize(this.pendingSize.width, this.pendingSize.height);
      this.pendingSize = null;
      this.dirty = true;
    }
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
      if (onset) {
        this.readPixel(0, 0);
        run?.sequencer.markOnsetRendered(performance.now());
      }
    }
    // The canvas keeps its last frame (preserveDrawingBuffer): a probe reads what is on screen.
    this.answerProbes();
    if (finished) this.finish(finished);
  };

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
    run.video = new VideoRun(
      this.shown.view.media,
      video,
      () => run.sequencer.markVideosEnded(),
      (error) => {
        run.error ??= error;
        run.sequencer.abort();
      },
    );
    run.video.start();
  }

  private stopVideo(run: ActiveRun, record: PresentationRecord): void {
    if (!run.video) return;
    record.videos = [run.video.stop()];
    run.video = null;
  }

  private finish(run: ActiveRun): void {
    this.run = null;
    this.lastRecords = run.sequencer.records;
    if (run.error) {
      const { media, mediaKind, reason } = run.error;
      run.reject(new StageMediaError(media, mediaKind, reason, run.error.message, run.sequencer.records));
    } else {
      run.resolve(run.sequencer.records);
    }
  }

  private answerProbes(): void {
    const resolution = this.app.renderer.resolution;
    for (const probe of this.probes.splice(0)) {
      try {
        probe.resolve(this.readPixel(Math.floor(probe.x * resolution), Math.floor(probe.y * resolution)));
      } catch (error) {
        probe.reject(error);
      }
    }
  }

  /** Read a device pixel of the canvas (from the top-left); blocks until the GPU has drawn the frame. */
  private readPixel(x: number, y: number): Rgba {
    const gl = (this.app.renderer as WebGLRenderer).gl;
    if (!gl) throw new Error('the bubble stage needs the WebGL renderer');
    const bound = gl.getParameter(gl.FRAMEBUFFER_BINDING) as WebGLFramebuffer | null;
    if (bound !== null) gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    gl.readPixels(x, gl.drawingBufferHeight - 1 - y, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, this.pixel);
    if (bound !== null) gl.bindFramebuffer(gl.FRAMEBUFFER, bound);
    const [r, g, b, a] = this.pixel;
    return [r, g, b, a];
  }

  private measureHost(): void {
    const width = Math.max(1, Math.floor(this.host.clientWidth));
    const height = Math.max(1, Math.floor(this.host.clientHeight));
    const screen = this.app.screen;
    if (width !== screen.width || height !== screen.height) this.pendingSize = { width, height };
  }

  private mediaInUse(): Set<string> {
    const names = new Set(this.run?.steps.flatMap((s) => (s.view ? [s.view.media] : [])) ?? []);
    if (this.shown) names.add(this.shown.view.media);
    return names;
  }
}
