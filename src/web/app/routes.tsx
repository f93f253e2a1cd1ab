import { lazy, type ReactElement } from 'react';
import { PROTOCOLS } from '../../protocols/registry.js';
import ParticipantPage from '../participant/ParticipantPage.js';

// Pages outside the participant journey load on demand.
const NotFound = lazy(() => import('../screens/NotFound.js'));
const MonoyerPage = lazy(() => import('../screens/visual/MonoyerPage.js'));
const ColorPlatesPage = lazy(() => import('../screens/visual/ColorPlatesPage.js'));
const PrivacyPolicy = lazy(() => import('../docs/PrivacyPolicy.js'));
const InformationSheet = lazy(() => import('../docs/InformationSheet.js'));
// The researcher console: its own chunk (vega, the tables), never loaded by a participant's page.
const ConsoleApp = lazy(() => import('../console/ConsoleApp.js'));

export interface RouteEntry {
  path: string;
  element: ReactElement;
}

/** Every route of SPEC §2: one participant page per protocol route, told its protocol; then the other pages. */
export const ROUTES: RouteEntry[] = [
  ...Object.values(PROTOCOLS).map((protocol) => ({
    path: `/${protocol.route}/:id`,
    // key: moving between two protocol routes starts a fresh page (and store).
    element: <ParticipantPage key={protocol.name} protocol={protocol} />,
  })),
  { path: '/monoyer', element: <MonoyerPage /> },
  { path: '/visual_test', element: <ColorPlatesPage /> },
  { path: '/rgpd_file', element: <PrivacyPolicy /> },
  { path: '/ficheInfo', element: <InformationSheet /> },
  { path: '/console/*', element: <ConsoleApp /> },
  { path: '*', element: <NotFound /> },
];
