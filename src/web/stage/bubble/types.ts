/**
 * Contract of the bubble stage (no pixi.js import: the bubble flow imports this from the first bundle and loads
 * the renderer lazily). All lengths are CSS pixels of the bubble canvas unless said otherwise.
 */
import type { PresentationRecord, Rect, StepEnd } from '../types';

/** One media drawn blurred with a clear circular window at the pointer. */
export interface BubbleView {
  /** Media name (key into the loaded media). */
  media: string;
  /** Where the media is drawn on the canvas. */
  rect: Rect;
  /** Gaussian deviation of the blur, CSS px (0: no blur). */
  sigma: number;
  /** Radius of the clear window, CSS px (0: no window). */
  radius: number;
}

/** A step of a bubble presentation: a view, or a blank canvas (the pause between A and B). */
export interface BubbleStep {
  label: string;
  view: BubbleView | null;
  end: StepEnd;
}

/** Where the window goes: the latest pointer sample in canvas CSS px, or null when there is none yet. */
export type PointerSource = () => { x: number; y: number } | null;

export interface BubblePlayOptions {
  signal?: AbortSignal;
  /** Called in the frame that first draws step `index` (its rAF timestamp, performance.now timebase). */
  onOnset?(index: number, label: string, timestampMs: number): void;
}

export interface BubbleStageController {
  /** Measured refresh period, ms. */
  readonly refreshMs: number;
  /** Canvas size in CSS px. */
  size(): { width: number; height: number };
  /** Natural size of a prepared media. */
  mediaSize(media: string): { width: number; height: number };
  /** Decode and upload the media and blur the images of these views now, so that showing them costs one draw. */
  prepare(views: BubbleView[]): Promise<void>;
  /**
   * Show a view and keep it (a video stays on its first frame) until play() or clear(): the screen waiting for
   * the participant's click. Resolves once it is drawn.
   */
  show(view: BubbleView): Promise<void>;
  /**
   * Present the steps back to back on the frame clock (durations in frames, videos to their end), then show blank.
   * Resolves with one record per step (stage timing records; `media` holds the view's media).
   */
  play(steps: BubbleStep[], options?: BubblePlayOptions): Promise<PresentationRecord[]>;
  /** Show nothing (ends a running play at the next frame). */
  clear(): void;
}
