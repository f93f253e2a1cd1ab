import { useState } from 'react';
import { isMturkPreview } from '../flow/query.js';
import { useGlimpse } from '../flow/StoreContext.js';
import { instructionPages } from './instructionPages.js';
import { SafeHtml } from './SafeHtml.js';
import { useFullscreenCheck } from './useFullscreen.js';
import { useStrings } from './useStrings.js';

/**
 * SPEC §2 screen 8: instructionTitle, instructionMsg then the job's extra pages (sanitised HTML), the protocol's
 * image, the stay-in-fullscreen note, and 'Go to the training' or 'Go to the test' on the last page.
 */
export function Instructions({ image }: { image?: string }) {
  const t = useStrings();
  const job = useGlimpse((s) => s.job)!;
  const training = useGlimpse((s) => s.flow.training);
  const preview = useGlimpse((s) => isMturkPreview(s.query) || (s.playlist !== null && s.playlist.sessionToken === null));
  const dispatch = useGlimpse((s) => s.dispatch);
  const { fullscreen } = useFullscreenCheck();
  const resumeAt = useGlimpse((s) => s.flow.resumeAt);
  const total = useGlimpse((s) => s.playlist?.stimulis.length ?? 0);
  const pages = instructionPages(job, training, t);
  const [page, setPage] = useState(0);
  const last = page === pages.length - 1;
  const blockedByFullscreen = job.requestFullScreen === 1 && !fullscreen;

  return (
    <main className="screen">
      <h1>{job.instructionTitle}</h1>
      {resumeAt > 0 && (
        <p id="resume-notice" className="notice">
          {t.resumeNotice.replace('{next}', String(Math.min(resumeAt + 1, total))).replace('{total}', String(total))}
        </p>
      )}
      <SafeHtml html={pages[page]!} />
      {image && page === 0 && <img className="instruction-image" src={image} alt="" />}
      {job.requestFullScreen === 1 && (
        <p>
          <em>{t.fullscreenStay}</em>
        </p>
      )}
      {blockedByFullscreen && <p className="error-text">{t.fullscreenRequired}</p>}
      <div className="actions">
        {page > 0 && (
          <button id="instructions-previous" type="button" className="secondary" onClick={() => setPage(page - 1)}>
            {t.previous}
          </button>
        )}
        {!blockedByFullscreen && !last && (
          <button id="instructions-next" type="button" onClick={() => setPage(page + 1)}>
            {t.next}
          </button>
        )}
        {!blockedByFullscreen && last && <GoButton training={training} preview={preview} onGo={() => dispatch({ type: 'INSTRUCTIONS_DONE' })} />}
      </div>
    </main>
  );
}

function GoButton({ training, preview, onGo }: { training: string; preview: boolean; onGo(): void }) {
  const t = useStrings();
  if (preview) return <p>{t.mturkPreview}</p>;
  if (training === 'unknown') return <p>{t.preparingPlaylist}</p>;
  return (
    <button id="instructions-go" type="button" onClick={onGo}>
      {training === 'pending' ? t.goToTraining : t.goToTest}
    </button>
  );
}
