import { useEffect, useState } from 'react';
import { useStrings } from './useStrings.js';
import { requestFullscreen, useFullscreenCheck } from './useFullscreen.js';

/** The fullscreen request follows the eligibility checks (SPEC §2 bubble flow order) and lasts until the result. */
export function wantsFullscreenDialog(phase: string, eligibilityStep: string): boolean {
  return phase === 'Instruction' || phase === 'Loading' || phase === 'Test' || (phase === 'Eligibility' && eligibilityStep === 'visual');
}

/**
 * SPEC §2 screen 4: Ok / Cancel. While the page is not fullscreen it is shown again at every 500 ms check,
 * also after Cancel. Rendered only when the job requires fullscreen (requestFullScreen = 1).
 */
export function FullscreenDialog() {
  const t = useStrings();
  const { fullscreen, tick } = useFullscreenCheck();
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  useEffect(() => {
    if (dismissedAt !== null && tick > dismissedAt) setDismissedAt(null);
  }, [tick, dismissedAt]);
  if (fullscreen || dismissedAt !== null) return null;
  return (
    <div className="dialog-backdrop">
      <div className="dialog" role="dialog" aria-modal="true" id="fullscreen-dialog">
        <p>{t.fullscreenRequest}</p>
        <div className="actions">
          <button id="fullscreen-ok" type="button" onClick={() => requestFullscreen()}>
            {t.ok}
          </button>
          <button id="fullscreen-cancel" type="button" className="secondary" onClick={() => setDismissedAt(tick)}>
            {t.cancel}
          </button>
        </div>
      </div>
    </div>
  );
}
