import { useGlimpse } from '../../flow/StoreContext.js';
import type { Strings } from '../../i18n/en.js';
import { Spinner } from '../Spinner.js';
import { useStrings } from '../useStrings.js';
import { allPass, type CheckId } from './rules.js';

const LABEL: Record<CheckId, keyof Strings> = {
  browser: 'eligibilityBrowser',
  os: 'eligibilityOs',
  maxSize: 'eligibilityMaxSize',
  minSize: 'eligibilityMinSize',
  zoom: 'eligibilityZoom',
  refresh: 'eligibilityRefresh',
};

/**
 * SPEC §2 screen 3: each check as pass or its message; Continue only if all pass, else Exit the test. The journey
 * measured the checks with the protocol's rules (flow/journey.ts); this screen shows them.
 */
export function EligibilityScreen() {
  const t = useStrings();
  const results = useGlimpse((s) => s.eligibility);
  const dispatch = useGlimpse((s) => s.dispatch);
  if (!results) return <Spinner text={t.loading} />;
  const eligible = allPass(results);
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
