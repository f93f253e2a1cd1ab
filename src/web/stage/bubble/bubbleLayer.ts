/**
 * The bubble item of a step: one media drawn blurred except for a clear window at the latest pointer position.
 * Owns the blurred copies (an image is blurred once, when it is prepared; a video's copy again for every new video
 * frame), the window mesh, and the damage bookkeeping that lets a window move redraw only the boxes it changed
 * (the canvas keeps the rest: preserveDrawingBuffer), so a frame costs in proportion to the window, not the media.
 */
import type { Container, Renderer } from 'pixi.js';
import { StageMediaError } from '../errors';
import type { FrameInfo } from '../frameClock';
import { sampleWith, type PreparedMedia } from '../mediaCache';
import type { Rect, StageItem } from '../types';
import { BlurCache } from './blurCache';
import type { BlurredMedia } from './blurCache';
import type { BlurPlan } from './blurPlan';
import { windowDamage } from './damage';
import type { Circle } from './damage';
import { WindowMesh } from './windowMesh';

/** The window position a frame drew: canvas CSS px, and the clock frame (index, rAF timestamp) that drew it first. */
export interface DrawnWindow {
  x: number;
  y: number;
  frame: number;
  frameTimestamp: number;
}

/** What the layer needs to draw: the bubble item and its prepared media. */
export type BubbleItem = StageItem & { bubble: NonNullable<StageItem['bubble']> };

interface Shown {
  item: BubbleItem;
  media: PreparedMedia;
  blurred: BlurredMedia;
}

export class BubbleLayer {
  private readonly blurs: BlurCache;
  private readonly windowMesh = new WindowMesh();
  private shown: Shown | null = null;
  private videoFrameCallback: number | null = null;
  private newVideoFrame = false;
  /** The browser has no requestVideoFrameCallback: every clock frame of a playing video counts as new. */
  private videoFramesUnknown = false;
  private drawnWindow: DrawnWindow | null = null;

  constructor(renderer: Renderer, parent: Container) {
    this.blurs = new BlurCache(renderer);
    parent.addChild(this.windowMesh.mesh);
  }

  /** The last window position drawn (null while nothing is shown or the pointer is unknown). */
  get drawn(): DrawnWindow | null {
    return this.drawnWindow;
  }

  get blurPlan(): BlurPlan | null {
    return this.shown?.blurred.plan ?? null;
  }

  /** The media shown now, if any (the media cache must not evict it). */
  get media(): string | null {
    return this.shown?.item.media ?? null;
  }

  /** Blur an item's media now (prepare), so that showing it costs one draw. */
  prepare(item: BubbleItem, media: PreparedMedia): void {
    this.blurs.get(media, item);
  }

  /** Show this item (or nothing): the whole media blurred until the pointer is known. */
  show(item: BubbleItem | null, media: PreparedMedia | undefined): void {
    this.stopVideoFrames();
    if (!item) {
      this.shown = null;
      this.windowMesh.hide();
      this.drawnWindow = null;
      return;
    }
    if (!media) throw new StageMediaError(item.media, 'unknown', 'missing');
    const blurred = this.blurs.get(media, item);
    // The clear window shows the media's own pixels: replicated k×k in an exact layout (the blur passes read texels).
    sampleWith(media, item.pixels?.filter ?? 'linear');
    this.shown = { item, media, blurred };
    this.windowMesh.setMedia(media.texture.source, blurred.texture.source, blurred.plan.uvScale, item.rect);
    this.windowMesh.setWindow(-1e6, -1e6, -1);
    this.drawnWindow = null;
    if (media.video) this.watchVideoFrames(media.video);
  }

  /**
   * A video that has a new frame is blurred again; true when it was. A stage-clock clip says so itself
   * (`clipChanged`: this clock frame uploaded one); an element video through its frame callbacks.
   */
  refreshVideo(playing: boolean, clipChanged: boolean): boolean {
    const media = this.shown?.media;
    if (media?.clip) {
      if (!clipChanged) return false;
      this.blurs.refresh(this.shown!.blurred);
      return true;
    }
    if (!media?.video || !(this.newVideoFrame || (this.videoFramesUnknown && playing))) return false;
    this.newVideoFrame = false;
    this.blurs.refresh(this.shown!.blurred);
    return true;
  }

  /**
   * Moves the window to the pointer (canvas CSS px; this frame draws it). Returns the canvas region the move
   * changed, or null when the window did not move (or the move changes nothing on the media).
   */
  follow(pointer: { x: number; y: number } | null, frame: FrameInfo): Rect | null {
    const shown = this.shown;
    if (!shown || !pointer) return null;
    const previous = this.drawnWindow;
    if (previous && previous.x === pointer.x && previous.y === pointer.y) return null;
    const radius = shown.item.bubble.radius > 0 ? shown.item.bubble.radius : -1;
    this.windowMesh.setWindow(pointer.x, pointer.y, radius);
    this.drawnWindow = { x: pointer.x, y: pointer.y, frame: frame.index, frameTimestamp: frame.timestamp };
    if (radius < 0) return null;
    const from: Circle | null = previous ? { x: previous.x, y: previous.y, radius } : null;
    // Before any window was drawn the media is all blurred: only the new window's box changes.
    return windowDamage(from, { x: pointer.x, y: pointer.y, radius }, shown.item.rect);
  }

  /** The next render covers the whole media, or only `region`. */
  drawAll(): void {
    this.windowMesh.drawAll();
  }

  drawRegion(region: Rect): void {
    this.windowMesh.drawRegion(region);
  }

  destroy(): void {
    this.show(null, undefined);
    this.windowMesh.destroy();
    this.blurs.destroy();
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
}
