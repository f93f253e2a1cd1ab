/**
 * Blurred copies of the prepared media, one per (media, deviation in texels): an image is blurred once, when it
 * is prepared, and reused for every frame and every replay. A video's copy is refreshed for each new frame.
 */
import type { Renderer, Texture } from 'pixi.js';
import type { PreparedMedia } from '../mediaCache';
import { blurPlan } from './blurPlan';
import type { BlurPlan } from './blurPlan';
import { GpuGaussianBlur } from './gpuBlur';
import type { StageItem } from '../types';

/** Copies kept at most (a pair, the next pair, a training image); the least recently used beyond go. */
const CAPACITY = 6;

export interface BlurredMedia {
  key: string;
  media: PreparedMedia;
  plan: BlurPlan;
  blur: GpuGaussianBlur;
  texture: Texture;
}

/** What a blurred copy depends on: where the media is drawn and its deviation (CSS px). */
export type BlurredView = Pick<StageItem, 'rect'> & { bubble: { sigma: number } };

/** Deviation in texture texels of a view: CSS deviation times texels per CSS px of the drawn media. */
export function sigmaInTexels(view: BlurredView, textureWidth: number): number {
  return view.rect.width > 0 ? (view.bubble.sigma * textureWidth) / view.rect.width : view.bubble.sigma;
}

export class BlurCache {
  private readonly entries = new Map<string, BlurredMedia>();

  constructor(private readonly renderer: Renderer) {}

  /** The blurred copy of this media for this view, made now if missing. */
  get(media: PreparedMedia, view: BlurredView): BlurredMedia {
    const plan = blurPlan(media.width, media.height, sigmaInTexels(view, media.width));
    const key = `${media.name}|${plan.factor}|${plan.passSigma}`;
    const cached = this.entries.get(key);
    if (cached && cached.media === media) {
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    cached?.blur.destroy();
    const blur = new GpuGaussianBlur(this.renderer);
    const texture = blur.run(media.texture.source, plan);
    const entry: BlurredMedia = { key, media, plan, blur, texture };
    this.entries.set(key, entry);
    this.evict(key);
    return entry;
  }

  /** Blur the media's current content again (a video's new frame). */
  refresh(entry: BlurredMedia): void {
    entry.blur.run(entry.media.texture.source, entry.plan);
  }

  destroy(): void {
    for (const entry of this.entries.values()) entry.blur.destroy();
    this.entries.clear();
  }

  private evict(keep: string): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= CAPACITY) return;
      if (key === keep) continue;
      entry.blur.destroy();
      this.entries.delete(key);
    }
  }
}
