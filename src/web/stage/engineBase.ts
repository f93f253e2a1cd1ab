/**
 * What the stage engine (stageEngine.ts) and the bubble engine (bubble/bubbleEngine.ts) share: the Pixi application
 * rendered from our own FrameClock (Pixi's ticker never runs), the MediaCache, the canvas following its host's size
 * (applied inside the next clock frame), the warm-up, the one-play-at-a-time rule, probes answered right after a
 * render, the onset readback, how a play() settles and how an unmount rejects what waits. Each engine keeps what it
 * draws and how its steps map to the StepSequencer.
 */
import { Sprite, Texture } from 'pixi.js';
import type { Application, Container, WebGLRenderer } from 'pixi.js';
import type { GlimpseStageDebug, Rgba } from './debugHook';
import type { StageMediaError } from './errors';
import { FrameClock } from './frameClock';
import type { FrameInfo, FrameScheduler } from './frameClock';
import { MediaCache } from './mediaCache';
import type { StepSequencer } from './stepSequencer';
import type { MediaLookup, PresentationRecord } from './types';

export interface EngineBaseOptions {
  app: Application;
  /** Element the canvas fills; its size is the canvas size. */
  host: HTMLElement;
  lookup: MediaLookup;
  background: string;
  scheduler?: FrameScheduler;
}

/** How the engine is named in its errors: `${controller}.play: …`, `The ${label} was unmounted`. */
export interface EngineNames {
  controller: string;
  label: string;
}

/** The part of a running play() the base settles. */
export interface PlayRun {
  sequencer: StepSequencer;
  /** The first media failure; the play ends at the next frame and rejects with it. */
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

export abstract class EngineBase<Run extends PlayRun> {
  protected readonly app: Application;
  protected readonly clock: FrameClock;
  protected readonly media: MediaCache;
  protected run: Run | null = null;
  /** Something changed since the last render: the next clock frame renders. */
  protected dirty = true;
  /** The clock is measuring the refresh: every frame renders (an off-canvas sprite). */
  protected warmingUp = false;
  protected lastRecords: PresentationRecord[] | null = null;
  /** play() was called and is preparing its media. */
  private starting = false;
  private destroyed = false;
  private readonly host: HTMLElement;
  private readonly resizeObserver: ResizeObserver;
  private pendingSize: { width: number; height: number } | null = null;
  private probes: PendingProbe[] = [];
  private removeDebugHook: (() => void) | null = null;
  private readonly pixel = new Uint8Array(4);

  constructor(
    options: EngineBaseOptions,
    private readonly names: EngineNames,
  ) {
    this.app = options.app;
    this.host = options.host;
    this.clock = new FrameClock(options.scheduler);
    this.media = new MediaCache(options.lookup, this.app.renderer);
    this.setBackground(options.background);
    // Absolutely placed so the canvas never feeds back into its container's size.
    Object.assign(this.app.canvas.style, { position: 'absolute', left: '0', top: '0', display: 'block' });
    this.resizeObserver = new ResizeObserver(() => this.measureHost());
    this.resizeObserver.observe(this.host);
    this.measureHost();
    this.clock.onFrame((frame) => this.drawFrame(frame));
  }

  /** One clock frame: what the engine draws. */
  protected abstract drawFrame(frame: FrameInfo): void;

  /** Blank the screen (clear() outside a play). */
  protected abstract showNothing(): void;

  get refreshMs(): number {
    return this.clock.refreshMs ?? Number.NaN;
  }

  size(): { width: number; height: number } {
    return this.pendingSize ?? { width: this.app.screen.width, height: this.app.screen.height };
  }

  mediaSize(media: string): { width: number; height: number } {
    const entry = this.media.get(media);
    if (!entry) throw new Error(`${this.names.controller}.mediaSize("${media}"): call prepare() with this media first`);
    return { width: entry.width, height: entry.height };
  }

  clear(): void {
    if (this.run) this.run.sequencer.abort();
    else this.showNothing();
  }

  setBackground(color: string): void {
    this.app.renderer.background.color = color;
    this.dirty = true;
  }

  /** Read one canvas pixel (CSS px) right after the next frame renders (the read itself waits for the GPU). */
  probe(x: number, y: number): Promise<Rgba> {
    return new Promise((resolve, reject) => this.probes.push({ x, y, resolve, reject }));
  }

  /**
   * Start the clock and resolve once the refresh period is measured, then install the debug hook. A sprite is
   * drawn off-canvas in every warm-up frame: the sprite shader is compiled now rather than in the first onset
   * frame, and the refresh is measured while the renderer is busy as it will be.
   */
  protected async warmUp(parent: Container, installHook: (hook: GlimpseStageDebug) => () => void): Promise<void> {
    const warmup = new Sprite(Texture.WHITE);
    warmup.position.set(-8, -8);
    parent.addChild(warmup);
    this.warmingUp = true;
    this.clock.start();
    await this.clock.whenMeasured();
    this.warmingUp = false;
    warmup.destroy();
    this.dirty = true;
    const engine = this;
    this.removeDebugHook = installHook({
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
  }

  /** A play() or show() is running or preparing. */
  protected get busy(): boolean {
    return this.run !== null || this.starting;
  }

  /**
   * The start of play(): one at a time, not after unmount; `prepare` runs while the engine counts as busy.
   * Resolves with the refresh period, or null when `signal` was already aborted (play() then shows nothing).
   */
  protected async beginPlay(signal: AbortSignal | undefined, prepare: () => Promise<void>): Promise<number | null> {
    const { controller, label } = this.names;
    if (this.busy) throw new Error(`${controller}.play: the ${label} is already playing`);
    if (this.destroyed) throw new Error(`${controller}.play: the ${label} is unmounted`);
    if (signal?.aborted) return null;
    this.starting = true;
    try {
      await prepare();
    } finally {
      this.starting = false;
    }
    return this.clock.whenMeasured();
  }

  /** A video's failure handler: the play keeps the first error and ends at the next frame. */
  protected failRun(run: Run): (error: StageMediaError) => void {
    return (error) => {
      run.error ??= error;
      run.sequencer.abort();
    };
  }

  /** First thing in a frame: a size change seen since the last frame; the frame then renders everything. */
  protected applyPendingSize(): void {
    if (!this.pendingSize) return;
    this.app.renderer.resize(this.pendingSize.width, this.pendingSize.height);
    this.pendingSize = null;
    this.dirty = true;
  }

  /** In an onset frame, after its render: wait for the GPU (1-pixel readback) and note when the frame was done. */
  protected stampOnset(run: Run): void {
    this.readPixel(0, 0);
    run.sequencer.markOnsetRendered(performance.now());
  }

  protected hasGl(): boolean {
    return !!(this.app.renderer as Partial<WebGLRenderer>).gl;
  }

  protected get probesWaiting(): boolean {
    return this.probes.length > 0;
  }

  /** After a render: every waiting probe reads the frame just drawn. */
  protected answerProbes(): void {
    const resolution = this.app.renderer.resolution;
    for (const probe of this.probes.splice(0)) {
      try {
        probe.resolve(this.readPixel(Math.floor(probe.x * resolution), Math.floor(probe.y * resolution)));
      } catch (error) {
        probe.reject(error);
      }
    }
  }

  /** The play's last frame was drawn: resolve with its records, or reject with its media error (records attached). */
  protected finish(run: Run): void {
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

  /**
   * Unmount: stop the clock and the size watch, remove the debug hook, reject a running play() (after `stopVideos`
   * stopped its videos) and the waiting probes with an AbortError. The engine frees its drawing and the media after.
   */
  protected shutDown(stopVideos: (run: Run) => void): void {
    this.destroyed = true;
    this.clock.stop();
    this.resizeObserver.disconnect();
    this.removeDebugHook?.();
    const run = this.run;
    this.run = null;
    if (run) {
      stopVideos(run);
      run.reject(new DOMException(`The ${this.names.label} was unmounted during play()`, 'AbortError'));
    }
    const unmounted = `The ${this.names.label} was unmounted`;
    this.probes.splice(0).forEach((probe) => probe.reject(new DOMException(unmounted, 'AbortError')));
  }

  /** Read a device pixel (from the top-left) of the frame just rendered; blocks until the GPU has drawn it. */
  private readPixel(x: number, y: number): Rgba {
    const gl = (this.app.renderer as WebGLRenderer).gl;
    if (!gl) throw new Error(`the ${this.names.label} needs the WebGL renderer`);
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
}
