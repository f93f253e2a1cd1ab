/**
 * `window.__glimpseBubble`: a read-only probe of the bubble stage for e2e tests, the pixel test and the benchmark
 * (documented in README.md). Installed with the stage's `installDebugHook` once the refresh is measured, removed on
 * unmount.
 */
import type { GlimpseStageDebug } from '../debugHook';
import type { BlurPlan } from './blurPlan';

/** The window position a frame drew: canvas CSS px, and the clock frame (index, rAF timestamp) that drew it first. */
export interface DrawnWindow {
  x: number;
  y: number;
  frame: number;
  frameTimestamp: number;
}

/** The stage's fields (refreshMs, frameCount, lastRecords, size(), probe()) and the bubble's own. */
export interface GlimpseBubbleDebug extends GlimpseStageDebug {
  /** Last window position drawn (null while nothing is shown or the pointer is unknown). */
  readonly drawn: DrawnWindow | null;
  /** Blur plan of the media on screen (factor, deviation per pass...). */
  readonly blurPlan: BlurPlan | null;
}

declare global {
  interface Window {
    __glimpseBubble?: GlimpseBubbleDebug;
  }
}
