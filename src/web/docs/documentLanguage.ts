import { parsePlatform } from '../../contract/platforms.js';

export type DocumentLang = 'en' | 'fr';

/** ?lang=fr|en wins; otherwise French on the nantes platform and English elsewhere, like every other page. */
export function documentLanguage(search: string): DocumentLang {
  const params = new URLSearchParams(search);
  const lang = params.get('lang');
  if (lang === 'fr' || lang === 'en') return lang;
  return parsePlatform(params.get('platform')) === 'nantes' ? 'fr' : 'en';
}
