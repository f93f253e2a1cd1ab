/**
 * Why a report has no results, in English and French: the one place that words it, for report.html and report.json
 * (English, `unavailableReport`) and for the console, which says it in its language where a chart has no data.
 * No Node imports, so the browser shares it.
 */
import { frenchTypography } from '../web/i18n/format.js';

/** What the data lacked for the family's methods (`other`: a message the analysis gave, in English). */
export type MissingData =
  | { code: 'noRatingVotes' }
  | { code: 'screeningRejectedAll'; screening: string }
  | { code: 'tooFewStimuli'; stimuli: number }
  | { code: 'tooFewLevels'; levels: number }
  | { code: 'singularDesign' }
  | { code: 'other'; message: string };

/** Why there are no results: what was missing, and how many sessions quality control left out. */
export interface NoResults {
  missing: MissingData;
  leftOut: number;
}

type Language = 'en' | 'fr';

const MISSING_WORDS: { [C in MissingData['code']]: Record<Language, (m: Extract<MissingData, { code: C }>) => string> } = {
  noRatingVotes: { en: () => 'no usable rating votes', fr: () => 'aucun vote de notation utilisable' },
  screeningRejectedAll: {
    en: (m) => `the ${m.screening} screening rejected every observer`,
    fr: (m) => `le filtrage ${m.screening} a écarté tous les observateurs`,
  },
  tooFewStimuli: {
    en: (m) => `paired scaling needs at least 2 stimuli, got ${m.stimuli}`,
    fr: (m) => `la mise à l’échelle par paires demande au moins 2 stimuli, il y en a ${m.stimuli}`,
  },
  tooFewLevels: {
    en: (m) => `MLDS needs at least 3 stimulus levels, got ${m.levels}`,
    fr: (m) => `la MLDS demande au moins 3 niveaux de stimulus, il y en a ${m.levels}`,
  },
  singularDesign: {
    en: () => 'the MLDS design is singular: some level never appears, or the levels are not connected',
    fr: () => 'le plan MLDS est singulier : un niveau n’apparaît jamais, ou les niveaux ne sont pas reliés',
  },
  other: { en: (m) => m.message, fr: (m) => m.message },
};

/** What the data lacked, in words. */
export function missingInWords(missing: MissingData, language: Language = 'en'): string {
  return (MISSING_WORDS[missing.code][language] as (m: MissingData) => string)(missing);
}

/** The analysis cannot run on these data: it says what is missing, so the report answers instead of failing. */
export class MissingDataError extends Error {
  constructor(readonly missing: Exclude<MissingData, { code: 'other' }>) {
    super(missingInWords(missing));
  }
}

/**
 * How the reader keeps the left-out sessions, in the reader's medium: the CLI's flags in the report, the two boxes'
 * labels in the console; `see`, the report's section that lists them.
 */
export interface KeepThem {
  rejected: string;
  excluded: string;
  see?: string;
}

/** What is missing and why, without the « No results » lead: the report's `unavailable[].missing`. */
export function missingSentence(because: NoResults, language: Language, keep: KeepThem): string {
  const n = because.leftOut;
  const hint =
    n === 0
      ? ''
      : language === 'fr'
        ? ` ${n} ${n === 1 ? 'session a été écartée' : 'sessions ont été écartées'} par le contrôle de qualité${keep.see ? ` (voir « ${keep.see} »)` : ''} ; ${keep.rejected} ou ${keep.excluded} les garde.`
        : ` ${n} ${n === 1 ? 'session was' : 'sessions were'} left out by quality control${keep.see ? ` (see "${keep.see}")` : ''}; ${keep.rejected} or ${keep.excluded} keeps them.`;
  const text = `${missingInWords(because.missing, language)}.${hint}`;
  return language === 'fr' ? frenchTypography(text) : text;
}

/** « No results: … »: what a report without results says first, in the reader's language. */
export function noResultsInWords(because: NoResults, language: Language, keep: KeepThem): string {
  const text = `${language === 'fr' ? 'Aucun résultat : ' : 'No results: '}${missingSentence(because, language, keep)}`;
  return language === 'fr' ? frenchTypography(text) : text;
}
