/**
 * `window.__glimpseBubble`: a read-only probe of the bubble stage for e2e tests, the pixel test and the benchmark
 * (documented in README.md). Installed once the refresh is measured, removed on unmount.
 */
import type { Rgba } from '../debugHook';
import type { PresentationRecord } from '../types';
import type { BlurPlan } from './blurPlan';

/** The window position a frame drew: canvas CSS px, and the clock frame (index, rAF timestamp) that drew it first. */
export interface DrawnWindow {
  x: number;
  y: number;
  frame: number;
  frameTimestamp: number;
}

export interface GlimpseBubbleDebug {
  readonly refreshMs: number;
  readonly frameCount: number;
  /** Last window position drawn (null while nothing is shown or the pointer is unknown). */
  readonly drawn: DrawnWindow | null;
  readonly lastRecords: PresentationRecord[] | null;
  /** Blur plan of the media on screen (factor, deviation per pass...). */
  readonly blurPlan: BlurPlan | null;
  size(): { width: number; height: number };
  /** Canvas pixel at CSS px (x, y), read right after the next frame renders. */
  probe(x: number, y: number): Promise<Rgba>;
}

declare global {
  interface Window {
    __glimpseBubble?: GlimpseBubbleDebug;
  }
}

export function installBubbleDebugHook(hook: GlimpseBubbleDebug): () => void {
  window.__glimpseBubble = hook;
  return () => {
    if (window.__glimpseBubble === hook) delete window.__glimpseBubble;
  };
}
