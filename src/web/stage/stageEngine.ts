/**
 * The StageController behind <Stage>: owns the frame clock and renders the Pixi application from it (Pixi's own
 * ticker never runs). Each clock frame: apply a pending resize, let the StepSequencer say what this frame shows,
 * swap the sprites, render, and on a step onset force the GPU to finish (1-pixel readPixels) and note the time.
 * Frames where nothing changes and no video plays are not rendered at all: the canvas keeps its last image.
 */
import { Sprite } from 'pixi.js';
import type { Container } from 'pixi.js';
import { installDebugHook } from './debugHook';
import { EngineBase } from './engineBase';
import type { EngineBaseOptions, PlayRun } from './engineBase';
import type { FrameInfo } from './frameClock';
import { StepSequencer } from './stepSequencer';
import type { PresentationRecord, PresentationStep, StageController, StageItem } from './types';
import { VideoRun } from './videoRun';

export interface StageEngineOptions extends EngineBaseOptions {
  /** Container the steps' sprites go into (declared in <Stage> through @pixi/react). */
  root: Container;
}

interface ActiveRun extends PlayRun {
  steps: PresentationStep[];
  signal?: AbortSignal;
  videos: VideoRun[];
}

export class StageEngine extends EngineBase<ActiveRun> implements StageController {
  private readonly root: Container;

  constructor(options: StageEngineOptions) {
    super(options, { controller: 'StageController', label: 'stage' });
    this.root = options.root;
    // Pixi's GC would unload a prepared texture left unused for 60 s, so that its onset frame re-uploads it;
    // MediaCache owns texture lifetimes instead.
    this.app.renderer.gc.enabled = false;
    this.app.canvas.addEventListener('pointerdown', this.handlePointerDown);
  }

  /** Start the clock; resolves once the refresh period is measured. */
  async start(): Promise<StageController> {
    await this.warmUp(this.root, (hook) => installDebugHook('__glimpseStage', hook));
    return this;
  }

  prepare(media: string[]): Promise<void> {
    return this.media.prepare(media, this.mediaInUse());
  }

  async play(steps: PresentationStep[], signal?: AbortSignal): Promise<PresentationRecord[]> {
    const names = steps.flatMap((step) => step.items.map((item) => item.media));
    const refreshMs = await this.beginPlay(signal, () => this.media.prepare(names));
    if (refreshMs === null) return [];
    return new Promise((resolve, reject) => {
      const sequencer = new StepSequencer(
        steps.map((step) => ({ label: step.label, media: step.items.map((item) => item.media), end: step.end })),
        refreshMs,
      );
      this.run = { steps, sequencer, signal, videos: [], error: null, resolve, reject };
    });
  }

  destroy(): void {
    this.app.canvas.removeEventListener('pointerdown', this.handlePointerDown);
    this.shutDown((run) => run.videos.forEach((video) => video.stop()));
    this.showItems([]);
    this.media.destroy();
  }

  protected showNothing(): void {
    this.showItems([]);
  }

  protected drawFrame(frame: FrameInfo): void {
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
    let finishedRun: ActiveRun | null = null;
    this.applyPendingSize();
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
    if (this.dirty || onset || this.warmingUp || this.probesWaiting || (run?.videos.length ?? 0) > 0) {
      this.app.render();
      this.dirty = false;
      if (onset && run && this.hasGl()) this.stampOnset(run);
      this.answerProbes();
    }
    if (finishedRun) this.finish(finishedRun);
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
      const onEnded = () => {
        if (run.videos.every((v) => v.ended)) run.sequencer.markVideosEnded();
      };
      run.videos.push(new VideoRun(name, video, onEnded, this.failRun(run)));
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

  private mediaInUse(): Set<string> {
    return new Set(this.run?.steps.flatMap((step) => step.items.map((item) => item.media)) ?? []);
  }

  private readonly handlePointerDown = (event: PointerEvent): void => {
    if (event.isPrimary) this.run?.sequencer.click(event.timeStamp);
  };
}
