import { lazy, type ReactElement } from 'react';
import { RATING_PROTOCOLS, ROUTE_OF_PROTOCOL } from '../../contract/protocols.js';
import GenericTestPage from '../test-page/GenericTestPage.js';

// Pages outside the participant journey load on demand.
const PiifacePage = lazy(() => import('../piiface/PiifacePage.js'));
const BubblePage = lazy(() => import('../bubble/BubblePage.js'));
const NotFound = lazy(() => import('../screens/NotFound.js'));
const MonoyerPage = lazy(() => import('../screens/visual/MonoyerPage.js'));
const VisualTestPage = lazy(() => import('../screens/visual/VisualTestPage.js'));
const PrivacyPolicy = lazy(() => import('../docs/PrivacyPolicy.js'));
const InformationSheet = lazy(() => import('../docs/InformationSheet.js'));

export interface RouteEntry {
  path: string;
  element: ReactElement;
}

/** Every route of SPEC §2. The seven rating protocols share the generic test page, told its protocol. */
export const ROUTES: RouteEntry[] = [
  ...RATING_PROTOCOLS.map((protocol) => ({
    path: `/${ROUTE_OF_PROTOCOL[protocol]}/:id`,
    // key: moving between two protocol routes starts a fresh page (and store).
    element: <GenericTestPage key={protocol} protocol={protocol} />,
  })),
  { path: `/${ROUTE_OF_PROTOCOL.bubble}/:id`, element: <BubblePage /> },
  { path: `/${ROUTE_OF_PROTOCOL.piiface}/:id`, element: <PiifacePage /> },
  { path: '/monoyer', element: <MonoyerPage /> },
  { path: '/visual_test', element: <VisualTestPage /> },
  { path: '/rgpd_file', element: <PrivacyPolicy /> },
  { path: '/ficheInfo', element: <InformationSheet /> },
  { path: '*', element: <NotFound /> },
];
