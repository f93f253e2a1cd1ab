import { useEffect, useMemo, useRef } from 'react';
import { useGlimpse, useGlimpseStore } from '../../flow/StoreContext.js';
import { submitBrowserCheck } from '../../flow/session.js';
import type { Strings } from '../../i18n/en.js';
import { useStrings } from '../useStrings.js';
import { bcheckBody, measureEnvironment } from './environment.js';
import { allPass, checkEligibility, type CheckId, type EligibilityPage } from './rules.js';

const LABEL: Record<CheckId, keyof Strings> = {
  browser: 'eligibilityBrowser',
  os: 'eligibilityOs',
  maxSize: 'eligibilityMaxSize',
  minSize: 'eligibilityMinSize',
  zoom: 'eligibilityZoom',
};

/**
 * SPEC §2 screen 3: each check as pass or its message; Continue only if all pass, else Exit the test.
 * `page` selects the page's rules (SPEC §5 allowed browsers and OS): the generic page by default.
 */
export function EligibilityScreen({ page = 'generic' }: { page?: EligibilityPage }) {
  const store = useGlimpseStore();
  const t = useStrings();
  const job = useGlimpse((s) => s.job)!;
  const query = useGlimpse((s) => s.query);
  const dispatch = useGlimpse((s) => s.dispatch);
  const env = useMemo(() => measureEnvironment(window, page, job, query.phone && (query.vertical || query.horizontal)), [page, job, query]);
  const results = useMemo(() => checkEligibility(env, t), [env, t]);
  const eligible = allPass(results);
  const posted = useRef(false);

  useEffect(() => {
    if (posted.current) return;
    posted.current = true;
    store.getState().setEligibilityMessages(results.flatMap((r) => (r.message ? [r.message] : [])));
    void submitBrowserCheck(store, bcheckBody(env), eligible);
  }, [store, env, results, eligible]);

  return (
    <main className="screen">
      <h1>{t.eligibilityTitle}</h1>
      <p>{t.eligibilityIntro}</p>
      <ul className="checks">
        {results.map((r) => (
          <li key={r.id} id={`check-${r.id}`}>
            <span>
              {t[LABEL[r.id]]} <small>({r.value})</small>
            </span>
            {r.pass ? <span className="check-pass">{t.eligibilityPass}</span> : <span className="check-fail">{r.message}</span>}
          </li>
        ))}
      </ul>
      <div className="actions">
        {eligible ? (
          <button id="eligibility-continue" type="button" onClick={() => dispatch({ type: 'ELIGIBILITY_PASSED' })}>
            {t.eligibilityContinue}
          </button>
        ) : (
          <button id="eligibility-exit" type="button" onClick={() => dispatch({ type: 'ELIGIBILITY_FAILED' })}>
            {t.eligibilityExit}
          </button>
        )}
      </div>
    </main>
  );
}
