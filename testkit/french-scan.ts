/**
 * Is a French page French? The English texts the console can show (its string table, the rules' words, every
 * measured detail and the no-results explanation on samples) are cut into fragments, and a French text must contain
 * none of the fragments its French counterpart lacks; and French typography (no-break spaces before « : ; ! ? % »
 * and inside « », curly apostrophes). No test runner imported: vitest (the tables) and Playwright (rendered pages)
 * both use it.
 */
import { noResultsInWords, type MissingData } from '../src/analysis/missing.js';
import { detailInWords, RULE_WORDS, type DetailFacts, type DetailKey } from '../src/quality/reasons.js';
import { CONSOLE_STRINGS, keepWithBoxes } from '../src/web/console/strings.js';

/** Facts of every detail the reasons table words, with distinct numbers (a new detail without a sample does not compile). */
export const DETAIL_SAMPLES: { [K in DetailKey]: Extract<DetailFacts, { key: K }> } = {
  off: { key: 'off' },
  noCheckStimulus: { key: 'noCheckStimulus', kind: 'attention' },
  checksRight: { key: 'checksRight', total: 3 },
  checksMissed: {
    key: 'checksMissed',
    missed: 2,
    total: 3,
    answers: [
      { stimulus: 206, answered: { label: 'acrExcellent' }, expected: { label: 'acrBad' } },
      { stimulus: 207, answered: { label: 'impairmentVeryAnnoying' }, expected: { label: 'impairmentImperceptible' }, tolerance: 1 },
    ],
  },
  notRatingScale: { key: 'notRatingScale' },
  tooFewRatings: { key: 'tooFewRatings', ratings: 2, needs: 4 },
  variance: { key: 'variance', variance: 0.109, ratings: 8, minimum: 0.15 },
  tooFewSessions: { key: 'tooFewSessions', sessions: 9, needs: 10 },
  tooFewShared: { key: 'tooFewShared', stimuli: 2, needs: 3 },
  noSpread: { key: 'noSpread' },
  correlation: { key: 'correlation', r: 0.512, sessions: 12, stimuli: 5, minimum: 0.7 },
  noAnswer: { key: 'noAnswer' },
  allShown: { key: 'allShown', answers: 6 },
  notShown: {
    key: 'notShown',
    count: 7,
    answers: 9,
    examples: [
      { stimulus: 11, why: 'noTiming' },
      { stimulus: 12, why: 'noMediaStep' },
      { stimulus: 13, why: 'aborted' },
      { stimulus: 14, why: 'mediaError', error: 'MEDIA_ERR_DECODE' },
    ],
  },
  noTimedStep: { key: 'noTimedStep' },
  mistimed: {
    key: 'mistimed',
    count: 4,
    timed: 11,
    sharePct: 36.4,
    maxPct: 10,
    examples: [
      { stimulus: 21, fault: { step: 'A', fault: 'cadence', skipped: 2, repeated: 3 } },
      { stimulus: 22, fault: { step: 'B', fault: 'frames', shown: 58, requested: 60, allowed: 1 } },
      { stimulus: 23, fault: { step: 'S', fault: 'dropped', dropped: 5, max: 1 } },
    ],
  },
  fullscreenNotRequired: { key: 'fullscreenNotRequired' },
  noWindowState: { key: 'noWindowState' },
  allFullscreen: { key: 'allFullscreen', answers: 5 },
  outsideFullscreen: { key: 'outsideFullscreen', count: 2, answers: 5 },
  noAnswerTime: { key: 'noAnswerTime' },
  fastest: { key: 'fastest', ms: 2500, minimum: 500 },
  tooFast: { key: 'tooFast', count: 6, answers: 8, minimum: 500, examples: [{ stimulus: 31, ms: 300 }] },
  noVisualTest: { key: 'noVisualTest' },
  visualPassed: { key: 'visualPassed' },
  visualFailed: { key: 'visualFailed' },
  visualUnknown: { key: 'visualUnknown' },
  noInspection: { key: 'noInspection' },
  inspection: { key: 'inspection', count: 2, inspected: 3, ms: 3000, azimuthDeg: 90, maxShortPct: 0, examples: [{ stimulus: 41, ms: 2000 }, { stimulus: 42, azimuthDeg: 45 }] },
};

/** Every reason of the no-results explanation the analysis can give (`other` is the analysis's own English message). */
const MISSING_SAMPLES: MissingData[] = [
  { code: 'noRatingVotes' },
  { code: 'screeningRejectedAll', screening: 'bt500' },
  { code: 'tooFewStimuli', stimuli: 1 },
  { code: 'tooFewLevels', levels: 2 },
  { code: 'singularDesign' },
];

type Pair = { en: string; fr: string };

/** The same facts with every number 1. */
const ones = <T>(facts: T): T =>
  typeof facts === 'number' ? (1 as T) : Array.isArray(facts) ? (facts.map(ones) as T) : facts && typeof facts === 'object' ? (Object.fromEntries(Object.entries(facts).map(([k, v]) => [k, ones(v)])) as T) : facts;

/** Two parallel tables (strings, nested tables, functions of a number) as pairs of texts. */
function pairsOf(en: unknown, fr: unknown): Pair[] {
  if (typeof en === 'string') return [{ en, fr: String(fr) }];
  if (typeof en === 'function') return [{ en: String(en(7)), fr: String((fr as (n: number) => unknown)(7)) }];
  if (en && typeof en === 'object') return Object.entries(en).flatMap(([key, value]) => pairsOf(value, (fr as Record<string, unknown>)[key]));
  return [];
}

/** The English texts the console shows and their French counterparts. */
export function consoleTexts(): Pair[] {
  const { en, fr } = CONSOLE_STRINGS;
  // The language switch is written in the language it switches to (marked with its lang attribute).
  const { language: _switch, ...tables } = en;
  return [
    ...pairsOf(tables, fr),
    ...Object.values(RULE_WORDS).map((words) => ({ en: words.en, fr: words.fr })),
    // Each detail with its samples' numbers, and with every number 1 (the singular forms: « 1 of 1 stimulus missed »).
    ...Object.values(DETAIL_SAMPLES)
      .flatMap((facts) => [facts, ones(facts)])
      .map((facts) => ({ en: detailInWords(facts, 'en'), fr: detailInWords(facts, 'fr') })),
    ...MISSING_SAMPLES.map((missing) => ({ en: noResultsInWords({ missing, leftOut: 2 }, 'en', keepWithBoxes(en)), fr: noResultsInWords({ missing, leftOut: 2 }, 'fr', keepWithBoxes(fr)) })),
  ];
}

/**
 * The English fragments (placeholders, numbers and punctuation cut out; at least 4 characters with letters) that a
 * French page must not show: each English text's fragments that its French counterpart does not contain (so a word
 * both languages share, « Session », « stimulus », never counts).
 */
export function englishFragments(pairs: readonly Pair[] = consoleTexts()): string[] {
  const fragments = new Set<string>();
  for (const { en, fr } of pairs) {
    if (en === fr) continue;
    for (const piece of en.split(/\{\w+\}|\d+(?:[.,]\d+)*|[:;()…,.!?«»"“”·|±%°→/\u00a0\u202f]/)) {
      const fragment = piece.trim();
      if (fragment.length >= 4 && /\p{L}{2}/u.test(fragment) && !fr.includes(fragment)) fragments.add(fragment);
    }
  }
  return [...fragments];
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The fragments a text shows as whole words (« Analysis » is not found in « Analyse », nor « rows » in « arrows »). */
export function englishIn(text: string, fragments: readonly string[]): string[] {
  return fragments.filter((fragment) => new RegExp(`(?<!\\p{L})${escape(fragment)}(?!\\p{L})`, 'u').test(text));
}

/** Where a French text breaks French typography, each fault with a few characters around it. */
export function typographyFaults(text: string): string[] {
  const rules: Array<[RegExp, string]> = [
    [/ [:;!?%»]/gu, 'ordinary space before'],
    [/« /gu, 'ordinary space after «'],
    [/[\p{L})»][;!?%]/gu, 'no space before'],
    [/[\p{L})»]:(?!\/\/)/gu, 'no space before'],
    [/\p{L}'\p{L}/gu, 'straight apostrophe'],
    [/"/gu, 'straight quote'],
  ];
  return rules.flatMap(([pattern, fault]) => [...text.matchAll(pattern)].map((m) => `${fault}: …${text.slice(Math.max(0, m.index - 20), m.index + 20)}…`));
}
