/**
 * The StageController behind <Stage>: owns the frame clock and renders the Pixi application from it (Pixi's own
 * ticker never runs). Each clock frame: apply a pending resize, let the StepSequencer say what this frame shows,
 * swap the sprites, render, and on a step onset force the GPU to finish (1-pixel readPixels) and note the time.
 * Frames where nothing changes and no video plays are not rendered at all: the canvas keeps its last image.
 */
import { Sprite, Texture } from 'pixi.js';
import type { Application, Container, WebGLRenderer } from 'pixi.js';
import { installDebugHook } from './debugHook';
import type { Rgba } from './debugHook';
import { StageMediaError } from './errors';
import { FrameClock } from './frameClock';
import type { FrameInfo, FrameScheduler } from './frameClock';
import { MediaCache } from './mediaCache';
import { StepSequencer } from './stepSequencer';
import type { MediaLookup, PresentationRecord, PresentationStep, StageController, StageItem } from './types';
import { VideoRun } from './videoRun';

export interface StageEngineOptions {
  app: Application;
  /** Container the steps' sprites go into (declared in <Stage> through @pixi/react). */
  root: Container;
  /** Element the canvas fills; its size is the stage size. */
  host: HTMLElement;
  lookup: MediaLookup;
  background: string;
  scheduler?: FrameScheduler;
}

interface ActiveRun {
  steps: PresentationStep[];
  sequencer: StepSequencer;
  signal?: AbortSignal;
  videos: VideoRun[];
  error: StageMediaError | null;
  resolve(records: PresentationRecord[]): void;
  reject(error: unknown): void;
}

interface PendingProbe {
  x: number;
  y: number;
  resolve(rgba: Rgba): void;
  reject(error: unknown): void;
}

export class StageEngine implements StageController {
  private readonly clock: FrameClock;
  private readonly media: MediaCache;
  private readonly app: Application;
  private readonly root: Container;
  private readonly host: HTMLElement;
  private readonly resizeObserver: ResizeObserver;
  private run: ActiveRun | null = null;
  /** play() was called and is preparing its media. */
  private starting = false;
  private pendingSize: { width: number; height: number } | null = null;
  private dirty = true;
  private probes: PendingProbe[] = [];
  private lastRecords: PresentationRecord[] | null = null;
  private removeDebugHook: (() => void) | null = null;
  private destroyed = false;
  private warmingUp = false;
  private readonly pixel = new Uint8Array(4);

  constructor(options: StageEngineOptions) {
    this.app = options.app;
    this.root = options.root;
    this.host = options.host;
    this.clock = new FrameClock(options.scheduler);
    this.media = new MediaCache(options.lookup, this.app.renderer);
    // Pixi's GC would unload a prepared texture left unused for 60 s, so that its onset frame re-uploads it;
    // MediaCache owns texture lifetimes instead.
    this.app.renderer.gc.enabled = false;
    this.setBackground(options.background);
    const canvas = this.app.canvas;
    // Absolutely placed so the canvas never feeds back into its container's size.
    Object.assign(canvas.style, { position: 'absolute', left: '0', top: '0', display: 'block' });
    canvas.addEventListener('pointerdown', this.handlePointerDown);
    this.resizeObserver = new ResizeObserver(() => this.measureHost());
    this.resizeObserver.observe(this.host);
    this.measureHost();
    this.clock.onFrame(this.onFrame);
  }

  /** Start the clock; resolves once the refresh period is measured. */
  async start(): Promise<StageController> {
    // Draw a sprite off-canvas in every warm-up frame: compiles the sprite shader now rather than in the first
    // onset frame, and measures the refresh while the renderer is busy as it will be.
    const warmup = new Sprite(Texture.WHITE);
    warmup.position.set(-8, -8);
    this.root.addChild(warmup);
    this.warmingUp = true;
    this.clock.start();
    await this.clock.whenMeasured();
    this.warmingUp = false;
    warmup.destroy();
    this.dirty = true;
    const engine = this;
    this.removeDebugHook = installDebugHook({
      get refreshMs() {
        return engine.refreshMs;
      },
      get frameCount() {
        return engine.clock.frameCount;
      },
      get lastRecords() {
        return engine.lastRecords;
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
    if (!entry) throw new Error(`StageController.mediaSize("${media}"): call prepare() with this media first`);
    return { width: entry.width, height: entry.height };
  }

  prepare(media: string[]): Promise<void> {
    return this.media.prepare(media, this.mediaInUse());
  }

  async play(steps: PresentationStep[], signal?: AbortSignal): Promise<PresentationRecord[]> {
    if (this.run || this.starting) throw new Error('StageController.play: the stage is already playing');
    if (this.destroyed) throw new Error('StageController.play: the stage is unmounted');
    if (signal?.aborted) return [];
    this.starting = true;
    try {
      await this.media.prepare(steps.flatMap((step) => step.items.map((item) => item.media)));
    } finally {
      this.starting = false;
    }
    const refreshMs = await this.clock.whenMeasured();
    return new Promise((resolve, reject) => {
      const sequencer = new StepSequencer(
        steps.map((step) => ({ label: step.label, media: step.items.map((item) => item.media), end: step.end })),
        refreshMs,
      );
      this.run = { steps, sequencer, signal, videos: [], error: null, resolve, reject };
    });
  }

  clear(): void {
    if (this.run) this.run.sequencer.abort();
    else this.showItems([]);
  }

  setBackground(color: string): void {
    this.app.renderer.background.color = color;
    this.dirty = true;
  }

  /** Read one canvas pixel right after the next frame renders (the read itself waits for the GPU). */
  probe(x: number, y: number): Promise<Rgba> {
    return new Promise((resolve, reject) => this.probes.push({ x, y, resolve, reject }));
  }

  destroy(): void {
    this.destroyed = true;
    this.clock.stop();
    this.resizeObserver.disconnect();
    this.app.canvas.removeEventListener('pointerdown', this.handlePointerDown);
    this.removeDebugHook?.();
    const run = this.run;
    this.run = null;
    if (run) {
      run.videos.forEach((video) => video.stop());
      run.reject(new DOMException('The stage was unmounted during play()', 'AbortError'));
    }
    this.probes.splice(0).forEach((probe) => probe.reject(new DOMException('The stage was unmounted', 'AbortError')));
    this.showItems([]);
    this.media.destroy();
  }

  private readonly onFrame = (frame: FrameInfo): void => {
    try {
      this.drawFrame(frame);
    } catch (error) {
      // Never leave a play() hanging: a frame that throws ends it.
      const run = this.run;
      this.run = null;
      if (run) {
        run.videos.forEach((video) => video.stop());
        run.reject(error);
      }
      console.error('stage frame failed', error);
    }
  };

  private drawFrame(frame: FrameInfo): void {
    let onset = false;
    let finishedRun: ActiveRun | null = null;
    if (this.pendingSize) {
      this.app.renderer.resize(this.pendingSize.width, this.pendingSize.height);
      this.pendingSize = null;
      this.dirty = true;
    }
    const run = this.run;
    if (run) {
      if (run.signal?.aborted) run.sequencer.abort();
      run.videos.forEach((video) => video.checkProgress(frame.timestamp));
      const change = run.sequencer.frame(frame);
      if (change.kind !== 'none') {
        if (change.ended !== null) this.stopVideos(run, run.sequencer.records[change.ended]);
        if (change.kind === 'show') {
          this.showItems(run.steps[change.index].items);
          this.startVideos(run, run.steps[change.index].items);
          onset = true;
        } else {
          this.showItems([]);
          finishedRun = run;
        }
      }
    }
    if (this.dirty || onset || this.warmingUp || this.probes.length > 0 || (run?.videos.length ?? 0) > 0) {
      this.app.render();
      this.dirty = false;
      if (onset && this.hasGl()) {
        this.readPixel(0, 0);
        run?.sequencer.markOnsetRendered(performance.now());
      }
      this.answerProbes();
    }
    if (finishedRun) this.finish(finishedRun);
  }

  private hasGl(): boolean {
    return !!(this.app.renderer as Partial<WebGLRenderer>).gl;
  }

  private finish(run: ActiveRun): void {
    this.run = null;
    const records = run.sequencer.records;
    this.lastRecords = records;
    if (run.error) {
      run.error.records = records;
      run.reject(run.error);
    } else {
      run.resolve(records);
    }
  }

  private showItems(items: StageItem[]): void {
    for (const child of this.root.removeChildren()) child.destroy();
    for (const item of items) {
      const entry = this.media.get(item.media);
      if (!entry) continue; // play() prepared every media; only an eviction race could get here
      const sprite = new Sprite(entry.texture);
      sprite.position.set(item.rect.x, item.rect.y);
      sprite.setSize(item.rect.width, item.rect.height);
      this.root.addChild(sprite);
    }
    this.dirty = true;
  }

  private startVideos(run: ActiveRun, items: StageItem[]): void {
    const names = [...new Set(items.map((item) => item.media))];
    for (const name of names) {
      const video = this.media.get(name)?.video;
      if (!video) continue;
      const videoRun = new VideoRun(
        name,
        video,
        () => {
          if (run.videos.every((v) => v.ended)) run.sequencer.markVideosEnded();
        },
        (error) => {
          run.error ??= error;
          run.sequencer.abort();
        },
      );
      run.videos.push(videoRun);
    }
    // A 'video-end' step without a video has nothing to wait for.
    if (run.videos.length === 0) run.sequencer.markVideosEnded();
    run.videos.forEach((video) => video.start());
  }

  private stopVideos(run: ActiveRun, record: PresentationRecord): void {
    if (run.videos.length === 0) return;
    record.videos = run.videos.map((video) => video.stop());
    run.videos = [];
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

  /** Read a device pixel (from the top-left) of the frame just rendered; blocks until the GPU has drawn it. */
  private readPixel(x: number, y: number): Rgba {
    const gl = (this.app.renderer as WebGLRenderer).gl;
    if (!gl) throw new Error('probe needs the WebGL renderer');
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
    return new Set(this.run?.steps.flatMap((step) => step.items.map((item) => item.media)) ?? []);
  }

  private readonly handlePointerDown = (event: PointerEvent): void => {
    if (event.isPrimary) this.run?.sequencer.click(event.timeStamp);
  };
}
