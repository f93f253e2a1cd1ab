import { useEffect, useState } from 'react';
import { isFullscreen } from '../flow/windowInfo.js';

/** SPEC §9: the fullscreen state is checked every 500 ms. */
export const FULLSCREEN_CHECK_MS = 500;

/** Whether the page counts as fullscreen (SPEC §5 rule), re-read every 500 ms; `tick` changes at every check. */
export function useFullscreenCheck(): { fullscreen: boolean; tick: number } {
  const [state, setState] = useState(() => ({ fullscreen: isFullscreen(), tick: 0 }));
  useEffect(() => {
    const timer = setInterval(() => setState((s) => ({ fullscreen: isFullscreen(), tick: s.tick + 1 })), FULLSCREEN_CHECK_MS);
    return () => clearInterval(timer);
  }, []);
  return state;
}

export function requestFullscreen(): void {
  const root = document.documentElement;
  if (typeof root.requestFullscreen !== 'function') {
    console.log('fullscreen API not available');
    return;
  }
  root.requestFullscreen().catch((error: unknown) => console.log('fullscreen request refused', error));
}
