import { Suspense } from 'react';
import { BrowserRouter, useRoutes } from 'react-router-dom';
import { parsePlatform } from '../../contract/platforms.js';
import { Spinner } from '../screens/Spinner.js';
import { stringsFor } from '../i18n/index.js';
import { ErrorBoundary } from './ErrorBoundary.js';
import { ROUTES } from './routes.js';
import './app.css';

function RoutedPage() {
  return useRoutes(ROUTES);
}

export function App() {
  const t = stringsFor(parsePlatform(new URLSearchParams(window.location.search).get('platform')));
  return (
    <BrowserRouter>
      <ErrorBoundary>
        <Suspense fallback={<Spinner text={t.loading} />}>
          <RoutedPage />
        </Suspense>
      </ErrorBoundary>
    </BrowserRouter>
  );
}
