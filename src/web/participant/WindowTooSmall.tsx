import { fill } from '../i18n/format.js';
import { useStrings } from '../screens/useStrings.js';
import type { WindowNeed } from './windowNeed.js';

/** The stimulus needs a larger window at the study's scaling: what to do, in the participant's language. */
export function WindowTooSmall({ need, clearRight = 0 }: { need: WindowNeed; /** CSS px at the window's right the page uses (piiface's panel). */ clearRight?: number }) {
  const t = useStrings();
  const size = { w: need.width, h: need.height, cw: need.current.width, ch: need.current.height, sw: window.screen.width, sh: window.screen.height };
  // Even a full-screen window would be too small: waiting cannot help, and the participant is told so.
  const screenTooSmall = need.width > window.screen.width || need.height > window.screen.height;
  return (
    <div className="test-message window-small" id="window-small" role="alert" style={clearRight > 0 ? { right: clearRight } : undefined}>
      <h2>{t.windowSmallTitle}</h2>
      <p>{fill(t.windowSmallBody, size)}</p>
      {need.pixelRatio !== 1 && <p>{fill(t.windowSmallScaling, { ...size, percent: Math.round(need.pixelRatio * 100) })}</p>}
      {screenTooSmall && <p id="screen-too-small">{fill(t.windowSmallScreen, size)}</p>}
    </div>
  );
}
