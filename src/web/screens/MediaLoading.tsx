import { formatHms, formatMo } from '../flow/loadProgress.js';
import { useGlimpse } from '../flow/StoreContext.js';
import { fill } from '../i18n/format.js';
import { useFullscreenCheck } from './useFullscreen.js';
import { useStrings } from './useStrings.js';

/**
 * SPEC §2 screen 10: progress bar (integer percent), 'Loading the N media files... hh:mm:ss - X Mo', then
 * 'Test will start soon!' (the journey starts the test by itself) or, in large-loading mode, a Start Test button.
 */
export function MediaLoading() {
  const t = useStrings();
  const figures = useGlimpse((s) => s.loadFigures);
  const loaded = useGlimpse((s) => s.media !== null);
  const job = useGlimpse((s) => s.job)!;
  const dispatch = useGlimpse((s) => s.dispatch);
  const { fullscreen } = useFullscreenCheck();
  const largeLoading = job.largeLoading === true;

  const percent = loaded ? 100 : (figures?.percent ?? 0);
  return (
    <main className="screen" id="media-loading">
      <h1>{t.loadingStimuli}</h1>
      <div className="progress" role="progressbar" aria-valuenow={percent} aria-valuemin={0} aria-valuemax={100}>
        <div style={{ width: `${percent}%` }}>{percent}%</div>
      </div>
      {figures && (
        <p id="loading-figures">
          {fill(t.loadingProgress, { n: figures.total, time: formatHms(figures.remainingMs), size: formatMo(figures.remainingBytes) })}
        </p>
      )}
      {loaded && !largeLoading && <p id="loading-soon">{t.loadingSoon}</p>}
      {loaded && largeLoading && job.requestFullScreen === 1 && !fullscreen && <p className="error-text">{t.fullscreenRequired}</p>}
      {loaded && largeLoading && (job.requestFullScreen !== 1 || fullscreen) && (
        <div className="actions">
          <button id="start-test" type="button" onClick={() => dispatch({ type: 'LOADING_DONE' })}>
            {t.startTest}
          </button>
        </div>
      )}
    </main>
  );
}
