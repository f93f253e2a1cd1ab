import { useEffect, useState } from 'react';
import { waitForVerificationCode } from '../flow/api.js';
import { useGlimpse } from '../flow/StoreContext.js';
import { copyText } from './copyText.js';
import { useStrings } from './useStrings.js';

/**
 * SPEC §2 screen 12. The code is asked for only now and shown only when the server gives it, which it does once
 * every rating is stored (409 INCOMPLETE before: the screen says it is saving and asks again).
 */
export function EndScreen() {
  const t = useStrings();
  const token = useGlimpse((s) => s.playlist?.sessionToken ?? null);
  const platform = useGlimpse((s) => s.query.platform);
  const completionUrl = useGlimpse((s) => s.job?.completionUrl);
  // undefined: still waiting; null: the server has no code for this session (only logged).
  const [code, setCode] = useState<string | null | undefined>(undefined);
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');

  useEffect(() => {
    if (!token) return;
    const abort = new AbortController();
    void waitForVerificationCode(token, abort.signal).then((c) => {
      if (!abort.signal.aborted) setCode(c);
    });
    return () => abort.abort();
  }, [token]);

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
        </>
      )}
      <p>{t.resultLeaveFullscreen}</p>
    </main>
  );
}
