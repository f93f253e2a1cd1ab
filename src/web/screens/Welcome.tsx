import { useState } from 'react';
import { useGlimpse } from '../flow/StoreContext.js';
import { SafeHtml } from './SafeHtml.js';
import { useStrings } from './useStrings.js';

/** SPEC §2 screen 6: welcomeTitle, welcomeMsg (sanitised HTML); on non-lab platforms the privacy box is required. */
export function Welcome() {
  const t = useStrings();
  const job = useGlimpse((s) => s.job)!;
  const platform = useGlimpse((s) => s.query.platform);
  const dispatch = useGlimpse((s) => s.dispatch);
  const [accepted, setAccepted] = useState(false);
  const [warned, setWarned] = useState(false);
  const needsPrivacy = platform !== 'nantes';
  const next = () => {
    if (needsPrivacy && !accepted) {
      setWarned(true);
      return;
    }
    dispatch({ type: 'WELCOME_DONE' });
  };
  return (
    <main className="screen">
      <h1>{job.welcomeTitle}</h1>
      <SafeHtml html={job.welcomeMsg} />
      {needsPrivacy && (
        <>
          <label>
            <input id="privacy-consent" type="checkbox" checked={accepted} onChange={(e) => setAccepted(e.target.checked)} />{' '}
            {t.privacyAccept}{' '}
            <a href={`/rgpd_file?platform=${platform}`} target="_blank" rel="noreferrer">
              {t.privacyPolicy}
            </a>
          </label>
          {warned && !accepted && <p className="error-text">{t.privacyRequired}</p>}
        </>
      )}
      <div className="actions">
        <button id="welcome-next" type="button" onClick={next}>
          {t.next}
        </button>
      </div>
    </main>
  );
}
