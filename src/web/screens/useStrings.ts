import { useGlimpse } from '../flow/StoreContext.js';
import { stringsFor, type Strings } from '../i18n/index.js';

/** The string table of the page's platform (French on nantes). */
export function useStrings(): Strings {
  return useGlimpse((s) => stringsFor(s.query.platform));
}
