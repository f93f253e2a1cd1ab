import { useEffect, useState } from 'react';
import { useGlimpseStore } from '../../web/flow/StoreContext.js';
import { useStrings } from '../../web/screens/useStrings.js';
import { PROGRESS_LOG_STATE, progressSnapshot, ProgressTracker, type ProgressSnapshot } from './progressTracker.js';

/**
 * Runs the progress tracker for the page's whole life (every 100 ms) and shows its result: a thin bar along the
 * top of the window. New images go to the session logs as 'Progress' state entries (see progressTracker.ts).
 */
export function ProgressBar() {
  const store = useGlimpseStore();
  const t = useStrings();
  const [snapshot, setSnapshot] = useState<ProgressSnapshot | null>(null);

  useEffect(() => {
    const tracker = new ProgressTracker(() => progressSnapshot(store.getState().flow, store.getState().trial), {
      onChange: setSnapshot,
      onNewPosition: (label) => store.logger.logState(PROGRESS_LOG_STATE, label),
    });
    return tracker.start();
  }, [store]);

  if (!snapshot || snapshot.phase === 'Landing') return null;
  return (
    <div
      className="piiface-progress-bar"
      id="piiface-progress"
      role="progressbar"
      aria-label={t.piifaceProgress}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={snapshot.percent}
      data-phase={snapshot.phase}
      data-status={snapshot.status}
    >
      <div style={{ width: `${snapshot.percent}%` }} />
    </div>
  );
}
