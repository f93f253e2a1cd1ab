import type { LogDomSizeEntry } from '../../contract/payloads.js';

/** SPEC §5: fullscreen counts as active when the inner height plus 2 px is at least the outer height. */
export const FULLSCREEN_TOLERANCE_PX = 2;

export function isFullscreenBySize(innerHeight: number, outerHeight: number): boolean {
  return innerHeight + FULLSCREEN_TOLERANCE_PX >= outerHeight;
}

export function isFullscreen(win: Window = window): boolean {
  return isFullscreenBySize(win.innerHeight, win.outerHeight);
}

/** Window, screen and document sizes (SPEC §3 "Window size" log entry, also the rating's window-size text). */
export function windowSizes(win: Window = window): Omit<LogDomSizeEntry, 'time'> {
  const doc = win.document.documentElement;
  return {
    inner: { width: win.innerWidth, height: win.innerHeight },
    outer: { width: win.outerWidth, height: win.outerHeight },
    screen: { width: win.screen.width, height: win.screen.height },
    available: { width: win.screen.availWidth, height: win.screen.availHeight },
    document: { width: doc.scrollWidth, height: doc.scrollHeight },
    zoom: zoomPercent(win.outerWidth, win.innerWidth),
    isfullScreen: isFullscreen(win),
  };
}

/**
 * Page zoom in percent from the outer/inner window widths (browser zoom changes the CSS size of the viewport
 * but not of the window). A window without a known outer size (some embedded/headless cases) counts as 100.
 */
export function zoomPercent(outerWidth: number, innerWidth: number): number {
  if (!(outerWidth > 0) || !(innerWidth > 0)) return 100;
  return Math.round((outerWidth / innerWidth) * 100);
}
