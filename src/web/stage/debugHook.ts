/**
 * The read-only window probes for e2e tests and benchmarks (documented in README.md): `window.__glimpseStage`
 * (the stage) and `window.__glimpseBubble` (the bubble stage, stage/bubble/debugHook.ts). Installed by the mounted
 * engine once its refresh is measured, removed when it unmounts.
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

/** The window properties that hold a debug hook. */
export type DebugHookKey = '__glimpseStage' | '__glimpseBubble';

/** Sets `window[key]`; the returned function removes it unless another engine has replaced it since. */
export function installDebugHook<K extends DebugHookKey>(key: K, hook: NonNullable<Window[K]>): () => void {
  const slots = window as Partial<Record<K, unknown>>;
  slots[key] = hook;
  return () => {
    if (slots[key] === hook) delete slots[key];
  };
}

/** `base` with the properties of `extra` added; getters stay getters, so the fields stay live. */
export function withDebugFields<B extends object, E extends object>(base: B, extra: E): B & E {
  return Object.defineProperties(base, Object.getOwnPropertyDescriptors(extra)) as B & E;
}
