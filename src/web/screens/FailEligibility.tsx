import { useGlimpse } from '../flow/StoreContext.js';
import { useStrings } from './useStrings.js';

/** Eligibility failed (SPEC §8 gives no text): say why, so no participant is screened out without a reason. */
export function FailEligibility() {
  const t = useStrings();
  const messages = useGlimpse((s) => s.eligibility)?.flatMap((r) => (r.message ? [r.message] : [])) ?? [];
  return (
    <main className="screen" id="fail-eligibility">
      <h1>{t.eligibilityFailedTitle}</h1>
      {messages.length > 0 && (
        <>
          <p>{t.eligibilityFailedReasons}</p>
          <ul>
            {messages.map((m) => (
              <li key={m} className="check-fail">
                {m}
              </li>
            ))}
          </ul>
        </>
      )}
      <p>{t.eligibilityFailedEnd}</p>
    </main>
  );
}
