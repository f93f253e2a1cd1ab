import { parsePlatform } from '../../contract/protocols.js';
import { stringsFor } from '../i18n/index.js';

/** /bubble/{id} and /piiface/{id} until their pages land. */
export default function ComingSoon() {
  const t = stringsFor(parsePlatform(new URLSearchParams(window.location.search).get('platform')));
  return (
    <main className="screen centered">
      <p>{t.comingSoon}</p>
    </main>
  );
}
