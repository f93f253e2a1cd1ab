import { useMemo, useState } from 'react';
import { useGlimpse } from '../flow/StoreContext.js';
import { copyText } from './copyText.js';
import { mturkSubmission } from './mturkSubmit.js';
import { useStrings } from './useStrings.js';

/**
 * SPEC §2 screen 12. The journey asks for the code (flow/journey.ts) once every answer is stored; until it comes
 * the screen says it is saving. With the code, a Prolific job's completion link, or for an accepted MTurk
 * assignment the 'Submit HIT' form.
 */
export function EndScreen() {
  const t = useStrings();
  const token = useGlimpse((s) => s.playlist?.sessionToken ?? null);
  const platform = useGlimpse((s) => s.query.platform);
  const completionUrl = useGlimpse((s) => s.job?.completionUrl);
  const fullscreenJob = useGlimpse((s) => s.job?.requestFullScreen === 1);
  const query = useGlimpse((s) => s.query);
  const mturk = useMemo(() => mturkSubmission(query), [query]);
  // undefined: still waiting; null: the server has no code for this session (only logged).
  const code = useGlimpse((s) => s.verificationCode);
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');

  const onCopy = async () => setCopy((await copyText(code ?? '')) ? 'copied' : 'failed');

  return (
    <main className="screen centered" id="end-screen">
      <h1>{t.resultTitle}</h1>
      {token && code === undefined && <p id="result-saving">{t.resultSaving}</p>}
      {typeof code === 'string' && (
        <>
          <p>{t.resultCodeLabel}</p>
          <p>
            <span className="code" id="verification-code">
              {code}
            </span>
          </p>
          <div className="actions" style={{ justifyContent: 'center' }}>
            <button id="copy-code" type="button" onClick={() => void onCopy()}>
              {t.copyCode}
            </button>
          </div>
          {copy === 'copied' && <p className="check-pass">{t.codeCopied}</p>}
          {copy === 'failed' && <p className="error-text">{t.copyFailed}</p>}
          {platform === 'prolific' && completionUrl && (
            <p>
              <a id="prolific-completion" href={completionUrl}>
                {t.prolificCompletion}
              </a>
            </p>
          )}
          {mturk && (
            // A real form POST (FIELD-NOTES: MTurk's externalSubmit), to a checked MTurk origin only (mturkSubmit.ts).
            <form id="mturk-submit" method="POST" action={mturk.action}>
              <p>{t.mturkSubmitNote}</p>
              <input type="hidden" name="assignmentId" value={mturk.assignmentId} />
              <input type="hidden" name="verification_code" value={code} />
              <div className="actions" style={{ justifyContent: 'center' }}>
                <button id="mturk-submit-hit" type="submit">
                  {t.mturkSubmitHit}
                </button>
              </div>
            </form>
          )}
        </>
      )}
      {fullscreenJob && <p>{t.resultLeaveFullscreen}</p>}
    </main>
  );
}
