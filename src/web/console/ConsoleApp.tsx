import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, Route, Routes, useNavigate } from 'react-router-dom';
import { getJson, postJson, setCsrfToken } from './consoleApi.js';
import { ConsoleContext, type ConsoleUser } from './context.js';
import { CONSOLE_STRINGS, initialLanguage, saveLanguage, type ConsoleLanguage } from './strings.js';
import { SignIn } from './SignIn.js';
import './console.css';

const JobsList = lazy(() => import('./JobsList.js'));
const JobPage = lazy(() => import('./JobPage.js'));
const ImportStudy = lazy(() => import('./ImportStudy.js'));
const Users = lazy(() => import('./Users.js'));

/**
 * The researcher console (docs/console.md), its own lazy chunk under /console: sign-in, the studies, a study's
 * live page, participants and downloads, and the import of a study zip. English or French, switchable.
 */
export default function ConsoleApp() {
  const [language, setLanguage] = useState<ConsoleLanguage>(initialLanguage);
  const t = CONSOLE_STRINGS[language];
  const [user, setUser] = useState<ConsoleUser | null | 'unknown'>('unknown');
  const navigate = useNavigate();

  useEffect(() => {
    document.documentElement.lang = language;
    document.title = t.title;
  }, [language, t.title]);

  useEffect(() => {
    getJson<{ user: ConsoleUser; csrfToken: string }>('/console/api/me').then(
      (me) => {
        setCsrfToken(me.csrfToken);
        setUser(me.user);
      },
      () => setUser(null),
    );
  }, []);

  const switchLanguage = () => {
    const next = language === 'en' ? 'fr' : 'en';
    saveLanguage(next);
    setLanguage(next);
  };

  if (user === 'unknown') return <p role="status" className="console-main">{t.loading}</p>;
  if (user === null) {
    return (
      <div className="console">
        <header className="console-header">
          <span className="console-brand">{t.title}</span>
          <button type="button" className="link-button" onClick={switchLanguage} lang={language === 'en' ? 'fr' : 'en'}>
            {t.language}
          </button>
        </header>
        <SignIn t={t} onSignedIn={(signedIn, csrf) => (setCsrfToken(csrf), setUser(signedIn))} />
      </div>
    );
  }

  const signOut = async () => {
    await postJson('/console/api/sign-out').catch(() => undefined);
    setUser(null);
    navigate('/console');
  };

  return (
    <ConsoleContext.Provider value={{ t, user }}>
      <div className="console">
        <header className="console-header">
          <Link to="/console" className="console-brand">
            {t.title}
          </Link>
          <nav aria-label={t.title}>
            <Link to="/console">{t.jobs}</Link>
            <Link to="/console/import">{t.importStudy}</Link>
            {user.admin && <Link to="/console/users">{t.users}</Link>}
          </nav>
          <span className="console-user" translate="no">
            {user.email}
          </span>
          <button type="button" className="link-button" onClick={switchLanguage} lang={language === 'en' ? 'fr' : 'en'}>
            {t.language}
          </button>
          <button type="button" className="secondary" onClick={() => void signOut()}>
            {t.signOut}
          </button>
        </header>
        <main className="console-main">
          <Suspense fallback={<p role="status">{t.loading}</p>}>
            <Routes>
              <Route index element={<JobsList />} />
              <Route path="import" element={<ImportStudy />} />
              <Route path="users" element={<Users />} />
              <Route path="jobs/:id/*" element={<JobPage />} />
              <Route path="*" element={<p>{t.notFound}</p>} />
            </Routes>
          </Suspense>
        </main>
      </div>
    </ConsoleContext.Provider>
  );
}
