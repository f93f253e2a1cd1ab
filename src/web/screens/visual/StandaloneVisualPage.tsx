import { useState } from 'react';
import { parsePlatform } from '../../../contract/platforms.js';
import { stringsFor } from '../../i18n/index.js';
import { VisualScreening, type VisualScreeningKind } from './VisualScreening.js';

/**
 * A visual test reached by its own link (SPEC §2: /monoyer, /visual_test), outside any job flow.
 * Language follows ?platform= like every other page. With no flow to continue into, the end (Continue or
 * Exit) leaves a short note that the page can be closed.
 */
export function StandaloneVisualPage({ order, search }: { order: readonly VisualScreeningKind[]; search?: string }) {
  const strings = stringsFor(parsePlatform(new URLSearchParams(search ?? window.location.search).get('platform')));
  const [ended, setEnded] = useState(false);
  if (ended) {
    return (
      <div className="visual-screen visual-outcome">
        <p>{strings.visualClosePage}</p>
      </div>
    );
  }
  return <VisualScreening order={order} strings={strings} onPass={() => setEnded(true)} onExit={() => setEnded(true)} />;
}
