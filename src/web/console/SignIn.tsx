import { useState, type FormEvent } from 'react';
import { ConsoleApiError, postJson } from './consoleApi.js';
import type { ConsoleUser } from './context.js';
import type { ConsoleStrings } from './strings.js';

/** The sign-in form; says why a sign-in failed (refused; slowed, because of failed sign-ins to this account from elsewhere; or the server too busy checking sign-ins). */
export function SignIn({ t, onSignedIn }: { t: ConsoleStrings; onSignedIn(user: ConsoleUser, csrfToken: string): void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answer = await postJson<{ user: ConsoleUser; csrfToken: string }>('/console/api/sign-in', { email, password });
      onSignedIn(answer.user, answer.csrfToken);
    } catch (e) {
      const code = e instanceof ConsoleApiError ? e.code : null;
      setError(code === 'SIGN_IN_BUSY' ? t.busy : code === 'SIGN_IN_SLOWED' ? t.signInSlowed((e as ConsoleApiError).retryAfterSeconds ?? 30) : t.signInFailed);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="console-main console-narrow">
      <h1>{t.signInTitle}</h1>
      <form onSubmit={(e) => void submit(e)} className="console-form">
        <label htmlFor="sign-in-email">{t.email}</label>
        <input id="sign-in-email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <label htmlFor="sign-in-password">{t.password}</label>
        <input id="sign-in-password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        {error && (
          <p role="alert" className="console-error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {t.signIn}
        </button>
      </form>
    </main>
  );
}
