import { parsePlatform } from '../../contract/platforms.js';
import { stringsFor } from '../i18n/index.js';

/** Any path outside the routes table (SPEC §2, §8). */
export default function NotFound() {
  const t = stringsFor(parsePlatform(new URLSearchParams(window.location.search).get('platform')));
  return (
    <main className="screen centered">
      <h1>{t.notFoundTitle}</h1>
      <p>{t.notFoundCode}</p>
    </main>
  );
}
