/**
 * `window.__glimpseStage`: a read-only probe for e2e tests and benchmarks (documented in README.md).
 * Installed by the mounted stage once its refresh is measured, removed when it unmounts.
 */
import type { PresentationRecord } from './types';

export type Rgba = [number, number, number, number];

export interface GlimpseStageDebug {
  /** Measured refresh period, ms. */
  readonly refreshMs: number;
  /** Frames seen by the stage clock since it started. */
  readonly frameCount: number;
  /** Canvas size in CSS px. */
  size(): { width: number; height: number };
  /** Colour of the canvas pixel at CSS px (x, y) from the top-left, read back right after the next frame renders. */
  probe(x: number, y: number): Promise<Rgba>;
  /** Records of the last finished play(), or null. */
  readonly lastRecords: PresentationRecord[] | null;
}

declare global {
  interface Window {
    __glimpseStage?: GlimpseStageDebug;
  }
}

export function installDebugHook(hook: GlimpseStageDebug): () => void {
  window.__glimpseStage = hook;
  return () => {
    if (window.__glimpseStage === hook) delete window.__glimpseStage;
  };
}
