import { layoutNeeds, type Size } from '../stage/layouts.js';
import type { PresentationStep, StageController } from '../stage/types.js';

/**
 * The window a stimulus needs at the study's scaling (docs/pixels.md): a stimulus is never shrunk to fit unless the
 * study asked for 'fit', so a window too small for it gets a message saying how large it must be. Pure.
 */

/** What a window too small for the stimulus needs (CSS px), and the device pixel ratio that makes it so. */
export interface WindowNeed {
  width: number;
  height: number;
  current: { width: number; height: number };
  pixelRatio: number;
}

/** How often a window too small for the stimulus is measured again while the page waits for a larger one. */
export const WINDOW_RECHECK_MS = 250;

/**
 * The window grown by what the canvas lacks for the largest of `needs` (canvas device px of layouts that do not fit,
 * back to CSS px); null when there are none.
 */
export function windowNeedFor(needs: readonly Size[], stage: Pick<StageController, 'devicePixels'>, win: Pick<Window, 'innerWidth' | 'innerHeight'>): WindowNeed | null {
  if (needs.length === 0) return null;
  const canvas = stage.devicePixels();
  const width = Math.max(...needs.map((n) => n.width));
  const height = Math.max(...needs.map((n) => n.height));
  const lack = (need: number, have: number) => Math.max(0, need - have) / canvas.ratio;
  return {
    width: Math.ceil(win.innerWidth + lack(width, canvas.width)),
    height: Math.ceil(win.innerHeight + lack(height, canvas.height)),
    current: { width: win.innerWidth, height: win.innerHeight },
    pixelRatio: canvas.ratio,
  };
}

/** The window a play's steps need: what their items that do not fit cover (layoutNeeds), or null. */
export function windowNeed(steps: readonly PresentationStep[], stage: Pick<StageController, 'devicePixels'>, win: Pick<Window, 'innerWidth' | 'innerHeight'>): WindowNeed | null {
  return windowNeedFor(
    steps.map((step) => layoutNeeds(step.items)).filter((n) => n !== null),
    stage,
    win,
  );
}
