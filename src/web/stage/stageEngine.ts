/**
 * The StageController behind <Stage>: owns the frame clock and renders the Pixi application from it (Pixi's own
 * ticker never runs). Per clock frame, in this order:
 *   1. apply a pending canvas resize;
 *   2. the StepSequencer says whether a step starts or ends in this frame (durations in frames, videos to the end,
 *      clicks, holds);
 *   3. on a new step, its plain items become sprites and its bubble item goes to the bubble layer; videos start;
 *   4. a bubble video that presented a new frame is blurred again; the bubble window moves to the latest pointer;
 *   5. render only what changed: everything after a new step, size or media frame; after a window move only the
 *      region it changed (the canvas keeps the rest: preserveDrawingBuffer). On a step onset, a 1-pixel readPixels
 *      waits for the GPU and the time is noted ("call on flip").
 * Frames where nothing changes are not rendered at all: the canvas keeps its last image.
 * 3D objects (docs/3d-objects.md) are drawn by three.js on the same WebGL context right after Pixi renders, in
 * the same clock frame, from the pose their ObjectRun gives for that frame (objects/, loaded with the first model).
 */
import { Sprite, Texture } from 'pixi.js';
import type { Application, Container, WebGLRenderer } from 'pixi.js';
import { BubbleLayer, type BubbleItem } from './bubble/bubbleLayer';
import { installDebugHook, type Rgba } from './debugHook';
import { readRow, stageDebugHook, StageProbes } from './debugProbes';
import { StageInterruptedError, type StageMediaError } from './errors';
import { InterruptionWatch, type StageInterruption } from './interruptions';
import { FrameClock } from './frameClock';
import type { FrameInfo, FrameScheduler } from './frameClock';
import { MediaCache, sampleWith, type VideoPath } from './mediaCache';
import { OBJECT_DEFAULTS } from '../../contract/objects';
import type { LoadedModel } from './objects/modelLoader';
import type { CameraPose } from './objects/objectPose';
import { InspectInput } from './objects/inspectInput';
import type { ObjectRenderer } from './objects/objectRenderer';
import { ObjectRun } from './objects/objectRun';
import { StepSequencer } from './stepSequencer';
import type { LoadedMedia, RefreshInfo, MediaLookup, PlayOptions, PresentationRecord, PresentationStep, Rect, StageController, StageItem } from './types';
import { ClipRun, ElementRun, type VideoRun } from './videoRun';

export interface StageEngineOptions {
  app: Application;
  /** Container the steps' sprites go into (declared in <Stage> through @pixi/react). */
  root: Container;
  /** Element the canvas fills; its size is the canvas size. */
  host: HTMLElement;
  lookup: MediaLookup;
  background: string;
  scheduler?: FrameScheduler;
  /** Where pointer events come from (the bubble window follows the latest one); default the window. */
  pointerEvents?: Window;
  /** Benchmarks: the pointer in canvas CSS px, read every frame, instead of pointer events. */
  pointer?: () => { x: number; y: number } | null;
  /** 'element' keeps every video on the <video> element path (the fallback), 'frames' has the stage-clock player
   * upload each VideoFrame itself (its fallback); benchmarks and tests. Default 'auto'. */
  videoPath?: VideoPath;
}

interface ActiveRun {
  steps: PresentationStep[];
  options: PlayOptions;
  sequencer: StepSequencer;
  videos: VideoRun[];
  /** The current step's 3D objects (one camera for all of them), or null. */
  object: ObjectRun | null;
  /** Index of the step on screen. */
  step: number;
  /** The first media failure; the play ends at the next frame and rejects with it. */
  error: StageMediaError | null;
  /** Changes of refresh rate seen before the play: one more during it is a display change. */
  refreshChanges: number;
  resolve(records: PresentationRecord[]): void;
  reject(error: unknown): void;
}

const isBubble = (item: StageItem): item is BubbleItem => item.bubble !== undefined;

/** The 3D objects on screen: where each is drawn, the view settings and the pose last drawn. */
interface ObjectsOnScreen {
  items: Array<{ model: LoadedModel; rect: Rect }>;
  options: StageItem['object'] & object;
  pose: CameraPose;
  /** Refreshes since the onset when `pose` was drawn. */
  frame: number;
}

export class StageEngine implements StageController {
  private readonly app: Application;
  private readonly root: Container;
  private readonly host: HTMLElement;
  private readonly clock: FrameClock;
  private readonly interruptions: InterruptionWatch;
  private readonly media: MediaCache;
  private readonly bubble: BubbleLayer;
  private readonly resizeObserver: ResizeObserver;
  private readonly pointerEvents: Window;
  private readonly pointerSource: (() => { x: number; y: number } | null) | null;
  private run: ActiveRun | null = null;
  /** Something changed since the last render: the next clock frame renders everything. */
  private dirty = true;
  /** The clock is measuring the refresh: every frame renders (an off-canvas sprite). */
  private warmingUp = false;
  /** play() was called and is preparing its media. */
  private starting = false;
  private destroyed = false;
  /** A new canvas size in device pixels (and the ratio to CSS px), applied at the start of the next frame. */
  private pendingSize: { deviceWidth: number; deviceHeight: number; ratio: number } | null = null;
  /** The canvas's device-pixel size as the browser reports it (ResizeObserver 'device-pixel-content-box'). */
  private deviceBox: { width: number; height: number } | null = null;
  private readonly probes: StageProbes;
  private lastRecords: PresentationRecord[] | null = null;
  private lastMediaRects: Rect[] = [];
  private removeDebugHook: (() => void) | null = null;
  /** Latest pointer position (client px) and the canvas's place in the window, for the bubble window. */
  private pointer: { clientX: number; clientY: number } | null = null;
  private canvasRect: Rect = { x: 0, y: 0, width: 0, height: 0 };
  private readonly pixel = new Uint8Array(4);
  /** three.js on the stage's context, created with the first 3D media (its own lazy chunk). */
  private objectRenderer: Promise<ObjectRenderer> | null = null;
  private objectsOnScreen: ObjectsOnScreen | null = null;
  private objectRendererNow: ObjectRenderer | null = null;
  private background: string;
  /** 3D objects under inspection: drag and wheel turn their camera. */
  private readonly inspect: InspectInput;

  constructor(options: StageEngineOptions) {
    this.app = options.app;
    this.root = options.root;
    this.host = options.host;
    this.pointerEvents = options.pointerEvents ?? window;
    this.pointerSource = options.pointer ?? null;
    this.clock = new FrameClock(options.scheduler);
    // A new ratio with the same CSS size reports no ResizeObserver box under emulation, nor in Safari: measured here.
    this.interruptions = new InterruptionWatch(this.app.canvas, (cause) => this.interrupt(cause), this.clock, () => this.measureHost());
    this.background = options.background;
    this.media = new MediaCache(options.lookup, this.app.renderer, undefined, options.videoPath, (loaded) => this.uploadModel(loaded));
    this.bubble = new BubbleLayer(this.app.renderer, this.app.stage);
    this.probes = new StageProbes(this.app.renderer);
    // Pixi's GC would unload a prepared texture left unused for 60 s, so that its onset frame re-uploads it;
    // MediaCache owns texture lifetimes instead.
    this.app.renderer.gc.enabled = false;
    this.setBackground(options.background);
    // Absolutely placed so the canvas never feeds back into its container's size.
    Object.assign(this.app.canvas.style, { position: 'absolute', left: '0', top: '0', display: 'block' });
    // The canvas box is the host's (100 % × 100 %), and its backing store is exactly the device pixels the browser
    // gives that box, so the page composites it 1:1 (docs/pixels.md).
    Object.assign(this.app.canvas.style, { width: '100%', height: '100%' });
    this.resizeObserver = new ResizeObserver((entries) => {
      for (const entry of entries) {
        const device = entry.target === this.app.canvas ? entry.devicePixelContentBoxSize?.[0] : undefined;
        if (device) this.deviceBox = { width: device.inlineSize, height: device.blockSize };
      }
      this.measureHost();
    });
    this.resizeObserver.observe(this.host);
    try {
      this.resizeObserver.observe(this.app.canvas, { box: 'device-pixel-content-box' });
    } catch {
      // Safari has no device-pixel-content-box: the size is rounded from the CSS size instead.
    }
    this.measureHost();
    this.app.canvas.addEventListener('pointerdown', this.handlePointerDown);
    this.inspect = new InspectInput(this.app.canvas, () => this.run?.object ?? null, () => this.canvasRect.height);
    this.pointerEvents.addEventListener('pointermove', this.handlePointerMove, { passive: true });
    this.pointerEvents.addEventListener('scroll', this.handleScroll, { passive: true });
    this.clock.onFrame((frame) => this.drawFrame(frame));
  }

  get refreshMs(): number {
    return this.clock.refreshMs ?? Number.NaN;
  }

  get refresh(): RefreshInfo | null {
    const estimate = this.clock.refresh;
    return estimate && { ...estimate, changes: this.clock.refreshChanges.map((c) => ({ ...c })) };
  }

  /**
   * Start the clock; resolves once the refresh period is measured, then installs the debug hook. A sprite is drawn
   * off-canvas in every warm-up frame: the sprite shader is compiled now rather than in the first onset frame, and
   * the refresh is measured while the renderer is busy as it will be.
   */
  async start(): Promise<StageController> {
    const warmup = new Sprite(Texture.WHITE);
    warmup.position.set(-8, -8);
    this.root.addChild(warmup);
    this.warmingUp = true;
    this.clock.start();
    await this.clock.whenMeasured();
    this.warmingUp = false;
    warmup.destroy();
    this.dirty = true;
    this.removeDebugHook = installDebugHook(
      stageDebugHook({
        controller: this,
        clock: this.clock,
        bubble: this.bubble,
        media: this.media,
        renderer: this.app.renderer,
        probes: this.probes,
        lastRecords: () => this.lastRecords,
        lastMediaRects: () => this.lastMediaRects,
        objects: () => this.objectsOnScreen,
        three: () => this.objectRendererNow,
      }),
    );
    return this;
  }

  size(): { width: number; height: number } {
    const device = this.devicePixels();
    return { width: device.width / device.ratio, height: device.height / device.ratio };
  }

  devicePixels(): { width: number; height: number; ratio: number } {
    if (this.pendingSize) return { width: this.pendingSize.deviceWidth, height: this.pendingSize.deviceHeight, ratio: this.pendingSize.ratio };
    const source = this.app.renderer.view.texture.source;
    return { width: source.pixelWidth, height: source.pixelHeight, ratio: this.app.renderer.resolution };
  }

  clientRect(): Rect {
    return { ...this.canvasRect };
  }

  mediaSize(media: string): { width: number; height: number } {
    const entry = this.media.get(media);
    if (!entry) throw new Error(`StageController.mediaSize("${media}"): call prepare() with this media first`);
    return { width: entry.width, height: entry.height };
  }

  async prepare(what: ReadonlyArray<string | StageItem>): Promise<void> {
    const items = what.filter((w): w is StageItem => typeof w !== 'string');
    await this.media.prepare(
      what.map((w) => (typeof w === 'string' ? w : w.media)),
      this.mediaInUse(),
    );
    for (const item of items.filter(isBubble)) this.bubble.prepare(item, this.media.get(item.media)!);
  }

  async play(steps: PresentationStep[], options: PlayOptions = {}): Promise<PresentationRecord[]> {
    if (this.run !== null || this.starting) throw new Error('StageController.play: the stage is already playing');
    if (this.destroyed) throw new Error('StageController.play: the stage is unmounted');
    if (options.signal?.aborted) return [];
    this.starting = true;
    try {
      await this.prepare(steps.flatMap((step) => step.items));
    } finally {
      this.starting = false;
    }
    await this.clock.whenMeasured();
    // After an interruption (a hidden page, a lost context, another screen), only once drawing is steady again.
    await this.interruptions.whenDrawable();
    if (this.destroyed || options.signal?.aborted) return [];
    const refreshMs = this.clock.refreshMs!;
    this.warmObjects(steps);
    return new Promise((resolve, reject) => {
      const sequencer = new StepSequencer(
        steps.map((step) => ({ label: step.label, media: step.items.map((item) => item.media), end: step.end })),
        refreshMs,
      );
      this.run = { steps, options, sequencer, videos: [], object: null, step: -1, error: null, refreshChanges: this.clock.refreshChanges.length, resolve, reject };
    });
  }

  click(timestampMs: number): void {
    this.run?.sequencer.click(timestampMs);
  }

  release(): void {
    this.run?.sequencer.release();
  }

  clear(): void {
    if (this.run) this.run.sequencer.abort();
    else this.show([]);
  }

  whenDrawable(): Promise<void> {
    return this.interruptions.whenDrawable();
  }

  setBackground(color: string): void {
    this.app.renderer.background.color = color;
    this.background = color;
    void this.objectRenderer?.then((renderer) => renderer.setBackground(color));
    this.dirty = true;
  }

  /** Read one canvas pixel (CSS px) right after the next clock frame (the read itself waits for the GPU). */
  probe(x: number, y: number): Promise<Rgba> {
    return this.probes.probe(x, y);
  }

  /**
   * Read a run of one canvas row right after the next clock frame: from CSS px (x, y), `width` CSS px long, as RGBA
   * bytes of device pixels (one readPixels: a watcher's cost stays one GPU wait per frame, however many points).
   */
  probeRow(x: number, y: number, width: number): Promise<Uint8Array> {
    return this.probes.probeRow(x, y, width);
  }

  /**
   * Unmount: stop the clock and the size watch, remove the debug hook, reject a running play() and the waiting
   * probes with an AbortError, then free the drawing and the media.
   */
  destroy(): void {
    this.destroyed = true;
    this.clock.stop();
    this.interruptions.destroy();
    this.resizeObserver.disconnect();
    this.removeDebugHook?.();
    this.app.canvas.removeEventListener('pointerdown', this.handlePointerDown);
    this.inspect.destroy();
    this.pointerEvents.removeEventListener('pointermove', this.handlePointerMove);
    this.pointerEvents.removeEventListener('scroll', this.handleScroll);
    const run = this.run;
    this.run = null;
    if (run) {
      run.videos.forEach((video) => video.stop());
      run.reject(new DOMException('The stage was unmounted during play()', 'AbortError'));
    }
    this.probes.rejectAll(new DOMException('The stage was unmounted', 'AbortError'));
    this.show([]);
    this.bubble.destroy();
    this.media.destroy();
    void this.objectRenderer?.then((renderer) => renderer.destroy());
  }

  private drawFrame(frame: FrameInfo): void {
    try {
      this.renderFrame(frame);
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
  }

  private renderFrame(frame: FrameInfo): void {
    let onset = false;
    let finished: ActiveRun | null = null;
    this.interruptions.frame(frame);
    const resized = this.applyPendingSize();
    // A new size or refresh rate while a step is on screen: what was laid out and timed for the old one is not what
    // is shown now (a window moved to another screen). Before the first onset, the play simply starts on the new one.
    if (this.run && this.run.step >= 0 && (resized || this.clock.refreshChanges.length > this.run.refreshChanges)) this.interruptions.displayChanged();
    const run = this.run;
    let videoChanged = false;
    let bubbleVideoChanged = false;
    let objectsChanged = false;
    if (run) {
      if (run.options.signal?.aborted) run.sequencer.abort();
      // Refreshes first: a clip whose last frame has had its refreshes ends its step in this very frame.
      run.videos.forEach((video) => video.tick(frame));
      run.object?.tick(frame);
      const change = run.sequencer.frame(frame);
      if (change.kind !== 'none') {
        if (change.ended !== null) this.stopVideos(run, run.sequencer.records[change.ended]);
        if (change.kind === 'show') {
          const step = run.steps[change.index];
          // A change of rate adopted before the first onset is the rate the play is timed at.
          if (run.step < 0) run.refreshChanges = this.clock.refreshChanges.length;
          run.step = change.index;
          this.show(step.items);
          this.recordDrawn(run.sequencer.records[change.index], step.items);
          this.startVideos(run, step.items, frame);
          onset = true;
          run.options.onOnset?.(change.index, step.label, frame.timestamp);
        } else {
          this.show([]);
          finished = run;
        }
      }
      for (const video of run.videos) {
        const changed = video.draw(frame);
        videoChanged ||= changed;
        if (changed && video.media === this.bubble.media) bubbleVideoChanged = true;
      }
      if (run.object && this.objectsOnScreen) {
        const object = run.object;
        const pose = object.pose();
        objectsChanged = object.drew(pose, frame);
        this.objectsOnScreen.pose = pose;
        this.objectsOnScreen.frame = object.refreshIndex;
        run.options.onCameraPose?.({ step: run.step, mode: object.mode, frame: object.refreshIndex, t: frame.timestamp, ...pose });
      }
    }
    if (this.bubble.refreshVideo((run?.videos.length ?? 0) > 0, bubbleVideoChanged)) this.dirty = true;
    const damage = this.bubble.follow(this.pointerOnCanvas(), frame);
    // A video with a new frame draws the frame; a bubble window move draws only the region it changed.
    const full = this.dirty || onset || this.warmingUp || objectsChanged || this.probes.renderCosts !== null || (videoChanged && this.bubble.media === null);
    const started = performance.now();
    if (full || damage) {
      if (full) this.bubble.drawAll();
      else this.bubble.drawRegion(damage!);
      this.app.renderer.render({ container: this.app.stage, clear: full });
      if (full) this.drawObjects();
      this.dirty = false;
      if (onset && run && this.hasGl()) {
        readRow(this.app.renderer, 0, 0, this.pixel);
        run.sequencer.markOnsetRendered(performance.now());
      } else if (this.probes.renderCosts && this.hasGl()) {
        readRow(this.app.renderer, 0, 0, this.pixel);
        this.probes.renderCosts.push(performance.now() - started);
      }
    }
    // The canvas keeps its last frame (preserveDrawingBuffer): a probe reads what is on screen.
    this.probes.answer();
    if (finished) this.finish(finished);
  }

  /** A step's items: plain ones as sprites, the bubble one (if any) on the bubble layer. */
  private show(items: readonly StageItem[]): void {
    for (const child of this.root.removeChildren()) child.destroy();
    if (items.length > 0) this.lastMediaRects = items.map((item) => ({ ...item.rect }));
    this.objectsOnScreen = null;
    for (const item of items) {
      if (isBubble(item)) continue;
      const entry = this.media.get(item.media);
      if (!entry) continue; // play() prepared every media; only an eviction race could get here
      if (entry.model) {
        this.objectsOnScreen ??= { items: [], options: item.object ?? OBJECT_DEFAULTS, pose: { az: 0, el: 0, dist: 1 }, frame: 0 };
        this.objectsOnScreen.items.push({ model: entry.model, rect: item.rect });
        continue;
      }
      sampleWith(entry, item.pixels?.filter ?? 'linear');
      const sprite = new Sprite(entry.texture);
      sprite.position.set(item.rect.x, item.rect.y);
      sprite.setSize(item.rect.width, item.rect.height);
      this.root.addChild(sprite);
    }
    const bubble = items.find(isBubble) ?? null;
    this.bubble.show(bubble, bubble ? this.media.get(bubble.media) : undefined);
    this.dirty = true;
  }

  /**
   * The step's record names the ratio it was drawn at and each media's scale, filter and device rectangle (3D
   * objects are rendered at device pixels, not sampled: their record is `object`).
   */
  private recordDrawn(record: PresentationRecord | undefined, items: readonly StageItem[]): void {
    const sampled = items.filter((item) => !this.media.peek(item.media)?.model);
    if (!record || sampled.length === 0) return;
    const ratio = this.app.renderer.resolution;
    record.pixelRatio = ratio;
    record.items = sampled.map((item) => {
      if (item.pixels) {
        const { scaling, scale, filter, device } = item.pixels;
        return { media: item.media, scaling, scale, filter, device: { ...device } };
      }
      const width = this.media.peek(item.media)?.width ?? 0;
      const device = { x: item.rect.x * ratio, y: item.rect.y * ratio, width: item.rect.width * ratio, height: item.rect.height * ratio };
      const rounded = Object.fromEntries(Object.entries(device).map(([key, v]) => [key, Math.round(v * 1000) / 1000])) as unknown as Rect;
      return { media: item.media, scaling: 'fit' as const, scale: width > 0 ? Math.round((device.width / width) * 1e6) / 1e6 : 1, filter: 'linear' as const, device: rounded };
    });
  }

  private startVideos(run: ActiveRun, items: readonly StageItem[], frame: FrameInfo): void {
    const names = [...new Set(items.filter((item) => !item.paused).map((item) => item.media))];
    const refreshMs = this.refreshMs;
    const onEnded = () => {
      if (run.videos.every((v) => v.ended) && (run.object?.ended ?? true)) run.sequencer.markVideosEnded();
    };
    const onError = (error: StageMediaError) => {
      run.error ??= error;
      run.sequencer.abort();
    };
    for (const name of names) {
      const entry = this.media.get(name);
      if (entry?.clip) run.videos.push(new ClipRun(name, entry.clip, refreshMs, onEnded, onError));
      else if (entry?.video) run.videos.push(new ElementRun(name, entry.video, entry.timeline ?? null, refreshMs, onEnded, onError));
    }
    const objects = this.objectsOnScreen;
    if (objects) {
      run.object = new ObjectRun(
        objects.items.map((item) => item.model.name),
        objects.options,
        refreshMs,
        onEnded,
      );
      run.object.start(frame);
      this.inspect.begin(objects.options.mode);
    }
    // A 'video-end' step without a playing video or a turntable has nothing to wait for.
    if (run.videos.length === 0 && run.object?.mode !== 'turntable') run.sequencer.markVideosEnded();
    run.videos.forEach((video) => video.start(frame));
  }

  private stopVideos(run: ActiveRun, record: PresentationRecord): void {
    if (run.object) {
      record.object = run.object.stop();
      run.object = null;
      this.inspect.end();
    }
    if (run.videos.length === 0) return;
    record.videos = run.videos.map((video) => video.stop());
    run.videos = [];
  }

  /** The play's last frame was drawn: resolve with its records, or reject with its media error (records attached). */
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

  /**
   * three.js draws the 3D objects on screen over what Pixi just rendered (same context, same frame), then Pixi's
   * cached GL state is reset. Until the three.js layer exists there can be no object on screen.
   */
  private drawObjects(): void {
    const objects = this.objectsOnScreen;
    const renderer = this.objectRendererNow;
    if (!objects || !renderer) return;
    renderer.draw(objects.items, objects.pose, objects.options, this.app.renderer.resolution, this.app.screen.height);
    this.app.renderer.resetState();
  }

  /** Each 3D step drawn once off screen at its rectangles' sizes, so that its onset frame allocates nothing. */
  private warmObjects(steps: readonly PresentationStep[]): void {
    const renderer = this.objectRendererNow;
    if (!renderer) return;
    for (const step of steps) {
      const items = step.items.flatMap((item) => {
        const model = this.media.get(item.media)?.model;
        return model ? [{ model, rect: item.rect, view: item.object ?? OBJECT_DEFAULTS }] : [];
      });
      if (items.length > 0) renderer.warm(items, items[0]!.view, this.app.renderer.resolution);
    }
    this.app.renderer.resetState();
  }

  /** The three.js layer (loaded and created with the first 3D media), then the model parsed and uploaded with it. */
  private async uploadModel(loaded: LoadedMedia): Promise<LoadedModel> {
    this.objectRenderer ??= Promise.all([import('./objects/objectRenderer'), import('./objects/modelLoader')]).then(([{ ObjectRenderer }]) => {
      const gl = (this.app.renderer as WebGLRenderer).gl as WebGL2RenderingContext | undefined;
      if (!gl) throw new Error('3D objects need the WebGL renderer');
      const renderer = new ObjectRenderer(this.app.canvas, gl);
      renderer.setBackground(this.background);
      this.objectRendererNow = renderer;
      return renderer;
    });
    const [renderer, { loadModel }] = await Promise.all([this.objectRenderer, import('./objects/modelLoader')]);
    const model = await loadModel(loaded);
    renderer.upload(model, OBJECT_DEFAULTS);
    this.app.renderer.resetState();
    return model;
  }

  private mediaInUse(): Set<string> {
    const names = new Set(this.run?.steps.flatMap((step) => step.items.map((item) => item.media)) ?? []);
    if (this.bubble.media) names.add(this.bubble.media);
    return names;
  }

  private pointerOnCanvas(): { x: number; y: number } | null {
    if (this.pointerSource) return this.pointerSource();
    if (!this.pointer) return null;
    return { x: this.pointer.clientX - this.canvasRect.x, y: this.pointer.clientY - this.canvasRect.y };
  }

  /** First thing in a frame: a size change seen since the last frame; the frame then renders everything. */
  /** Applies a new canvas size, if any; true when it did. */
  private applyPendingSize(): boolean {
    if (!this.pendingSize) return false;
    const { deviceWidth, deviceHeight, ratio } = this.pendingSize;
    // Pixi sizes the backing store to round(width × resolution): exactly the device pixels asked for.
    this.app.renderer.resize(deviceWidth / ratio, deviceHeight / ratio, ratio);
    this.pendingSize = null;
    this.dirty = true;
    return true;
  }

  /**
   * The stage stopped drawing (stage/interruptions.ts): the play ends now, its current step's record naming the
   * cause and counting only what was drawn, and play() rejects with StageInterruptedError (records attached).
   */
  private interrupt(cause: StageInterruption): void {
    const run = this.run;
    if (!run) return;
    this.run = null;
    const ended = run.sequencer.interrupt(cause, performance.now());
    if (ended !== null) this.stopVideos(run, run.sequencer.records[ended]);
    else run.videos.forEach((video) => video.stop());
    this.show([]);
    this.dirty = true;
    this.lastRecords = run.sequencer.records;
    run.reject(new StageInterruptedError(cause, run.sequencer.records));
  }

  private hasGl(): boolean {
    return !!(this.app.renderer as Partial<WebGLRenderer>).gl;
  }

  /**
   * The canvas's size in device pixels (the browser's own device-pixel box where it reports one) and the ratio; a
   * change is applied at the start of the next frame. A new ratio (a window moved to another screen, a zoom step)
   * comes with a new device box, so it is seen here too.
   */
  private measureHost(): void {
    const box = this.host.getBoundingClientRect();
    const ratio = window.devicePixelRatio || 1;
    // The browser's box differs from CSS size × ratio by its snapping only (≤ 1 px); an emulated ratio (DevTools,
    // Playwright's deviceScaleFactor) leaves it in CSS px: then the product is the truth.
    const snapped = (device: number | undefined, css: number) => (device !== undefined && Math.abs(device - css * ratio) <= 1 ? device : Math.round(css * ratio));
    const deviceWidth = Math.max(1, snapped(this.deviceBox?.width, box.width));
    const deviceHeight = Math.max(1, snapped(this.deviceBox?.height, box.height));
    const current = this.devicePixels();
    if (deviceWidth !== current.width || deviceHeight !== current.height || ratio !== current.ratio) this.pendingSize = { deviceWidth, deviceHeight, ratio };
    this.canvasRect = { x: box.left, y: box.top, width: deviceWidth / ratio, height: deviceHeight / ratio };
  }

  private readonly handlePointerDown = (event: PointerEvent): void => {
    if (!event.isPrimary) return;
    this.run?.sequencer.click(event.timeStamp);
    this.inspect.pointerDown(event);
  };

  private readonly handlePointerMove = (event: PointerEvent): void => {
    if (!event.isPrimary) return;
    this.pointer = { clientX: event.clientX, clientY: event.clientY };
    this.inspect.pointerMove(event);
  };

  private readonly handleScroll = (): void => this.measureHost();
}
