/**
 * The quality rules in words (docs/quality.md): what each rule decides (payment or analysis), the sentence
 * a researcher, a participant or a platform reads instead of the rule's code name, and what each rule measured
 * (DETAIL_WORDS), in English and French. The one table of these texts: the server (verdicts, lists, exports, the
 * report) and the console (in its language) both word reasons from here. Only string tables are imported, so the
 * browser and the server share it.
 */
import { en as pageEn, type Strings } from '../web/i18n/en.js';
import { frenchTypography } from '../web/i18n/format.js';
import { fr as pageFr } from '../web/i18n/fr.js';

export type RuleName =
  | 'gold'
  | 'traps'
  | 'attention'
  | 'minVariance'
  | 'minCorrelation'
  | 'minTrialMs'
  | 'shownToEnd'
  | 'maxMistimedShare'
  | 'fullscreen'
  | 'visualTests'
  | 'minInspection';

/**
 * What a failed rule decides. `payment`: the participant's effort or attention (what Prolific and MTurk accept as a
 * reason to reject); such a session is rejected and also left out of the analysis. `analysis`: a technical fault or
 * a condition of the study (timing, media, window, visual tests): the session is left out of the analysis and the
 * participant is paid.
 */
export type RuleKind = 'payment' | 'analysis';

export const RULE_KIND: Readonly<Record<RuleName, RuleKind>> = {
  gold: 'payment',
  traps: 'payment',
  attention: 'payment',
  minVariance: 'payment',
  minCorrelation: 'payment',
  minTrialMs: 'payment',
  shownToEnd: 'analysis',
  maxMistimedShare: 'analysis',
  fullscreen: 'analysis',
  visualTests: 'analysis',
  // Too little of a 3D object seen may be the device (a touchpad without drag, an object that failed to render):
  // the session is left out of the analysis, never refused pay.
  minInspection: 'analysis',
};

export type ReasonLanguage = 'en' | 'fr';

/** Each rule's failure in words: what a participant, a platform or a researcher reads. */
export const RULE_WORDS: Readonly<Record<RuleName, Record<ReasonLanguage, string>>> = {
  gold: { en: 'Answered a question with a known answer wrongly', fr: 'Réponse fausse à une question dont la réponse est connue' },
  traps: { en: 'Missed a question that said what to answer', fr: 'Question indiquant la réponse à donner manquée' },
  attention: { en: 'Failed an attention check', fr: 'Contrôle d’attention échoué' },
  minVariance: { en: 'Gave (almost) the same answer to every question', fr: 'A donné (presque) la même réponse à chaque question' },
  minCorrelation: { en: 'Answers unrelated to those of the other participants', fr: 'Réponses sans rapport avec celles des autres participants' },
  minTrialMs: { en: 'Answered too quickly to have looked at the stimuli', fr: 'Réponses trop rapides pour avoir regardé les stimuli' },
  shownToEnd: { en: 'A stimulus could not be shown in full (media error or interrupted display)', fr: 'Un stimulus n’a pas pu être montré en entier (erreur de média ou affichage interrompu)' },
  maxMistimedShare: { en: 'Stimuli shown for the wrong duration on this device', fr: 'Stimuli montrés pendant une durée inexacte sur cet appareil' },
  fullscreen: { en: 'Answers given outside fullscreen', fr: 'Réponses données hors du plein écran' },
  visualTests: { en: 'Visual tests not shown passed in the session logs', fr: 'Tests visuels non réussis d’après les journaux de session' },
  minInspection: { en: 'Three-dimensional objects not inspected long enough or from enough sides', fr: 'Objets en trois dimensions pas assez longtemps examinés ou sous trop peu d’angles' },
};

/** A failed rule in words; an unknown rule name (a verdict stored by a later version) is shown as is. */
export function ruleInWords(rule: string, language: ReasonLanguage = 'en'): string {
  const words = (RULE_WORDS as Record<string, Record<ReasonLanguage, string>>)[rule]?.[language] ?? rule;
  return language === 'fr' ? frenchTypography(words) : words;
}

/**
 * A check's answer as the participant saw it: the label of the participant page (a key of its string tables, said
 * in the reader's language as that page says it), or the answer as written where the page shows no label.
 */
export type QuotedAnswer = { label: keyof Strings } | { as: string | number };

export type CheckKind = 'gold' | 'trap' | 'attention';
/** A check answered outside its tolerance (gold) or not as it tells. */
export interface CheckMiss {
  stimulus: number;
  answered: QuotedAnswer;
  expected: QuotedAnswer;
  /** Gold: how far from `expected` an answer may be, on the reporting scale. */
  tolerance?: number;
}
/** Why a stimulus was not seen whole. */
export type NotShown = { stimulus: number; why: 'noTiming' | 'noMediaStep' | 'aborted' } | { stimulus: number; why: 'mediaError'; error: string };
/** A presentation step whose exposure was not what the study asked (`step`: its label). */
export type ExposureFault =
  | { step: string; fault: 'cadence'; skipped: number; repeated: number }
  | { step: string; fault: 'frames'; shown: number; requested: number; allowed: number }
  | { step: string; fault: 'dropped'; dropped: number; max: number };
export interface ShortInspection {
  stimulus: number;
  /** Set when the inspection time was short. */
  ms?: number;
  /** Set when the azimuth range was short. */
  azimuthDeg?: number;
}

/** Numbers as each language writes them: English as before (0.109, 2500), French with its comma and grouping. */
const NUMBER: Record<ReasonLanguage, (x: number) => string> = {
  en: (x) => String(x),
  fr: (x) => x.toLocaleString('fr-FR', { maximumFractionDigits: 3 }),
};
type Num = (x: number) => string;

const phrase = <F>(en: (f: F, n: Num) => string, fr: (f: F, n: Num) => string) => ({ en, fr });
/** Each language's punctuation between a list's items and after a label (French spaces them; see frenchTypography). */
const SEP: Record<ReasonLanguage, string> = { en: '; ', fr: ' ; ' };
const COLON: Record<ReasonLanguage, string> = { en: ': ', fr: ' : ' };
/** The first examples of a list (the facts keep at most a few), with « … » when there were more. */
const examples = <T>(language: ReasonLanguage, items: readonly T[], count: number, say: (item: T) => string) =>
  `${items.map(say).join(SEP[language])}${count > items.length ? `${SEP[language]}…` : ''}`;
const enPlural = (n: number, word: string, n$: Num) => `${n$(n)} ${word}${n === 1 ? '' : 's'}`;
const enStimuli = (n: number, n$: Num) => `${n$(n)} ${n === 1 ? 'stimulus' : 'stimuli'}`;
/** French: 0 and 1 take the singular. */
const frPlural = (n: number, singular: string, plural = `${singular}s`) => (n <= 1 ? singular : plural);
const KIND_FR: Record<CheckKind, string> = { gold: 'à réponse connue', trap: 'indiquant la réponse à donner', attention: 'de contrôle d’attention' };

function quoted(answer: QuotedAnswer, language: ReasonLanguage): string {
  if ('label' in answer) return (language === 'fr' ? pageFr : pageEn)[answer.label] ?? answer.label;
  return String(answer.as);
}
const checkMiss = (language: ReasonLanguage) => (m: CheckMiss) => {
  const tolerance = m.tolerance ? ` ± ${m.tolerance}` : '';
  return language === 'fr'
    ? `stimulus ${m.stimulus} : répondu ${quoted(m.answered, 'fr')}, attendu ${quoted(m.expected, 'fr')}${tolerance}`
    : `stimulus ${m.stimulus}: answered ${quoted(m.answered, 'en')}, expected ${quoted(m.expected, 'en')}${tolerance}`;
};
const NOT_SHOWN: Record<Exclude<NotShown['why'], 'mediaError'>, Record<ReasonLanguage, string>> = {
  noTiming: { en: 'no timing record', fr: 'aucun relevé de minutage' },
  noMediaStep: { en: 'no media step recorded', fr: 'aucune étape de média enregistrée' },
  aborted: { en: 'presentation aborted', fr: 'présentation interrompue' },
};
const notShown = (language: ReasonLanguage) => (x: NotShown) =>
  `stimulus ${x.stimulus}${COLON[language]}${x.why === 'mediaError' ? `${language === 'fr' ? 'erreur de média' : 'media error'} (${x.error})` : NOT_SHOWN[x.why][language]}`;

/** An exposure fault (`exposureFault` in rules.ts finds it) in words. */
export function exposureInWords(f: ExposureFault, language: ReasonLanguage = 'en'): string {
  const n$ = NUMBER[language];
  if (language === 'fr') {
    if (f.fault === 'cadence') return `${f.step} : ${n$(f.skipped)} ${frPlural(f.skipped, 'image du clip sautée', 'images du clip sautées')}, ${n$(f.repeated)} ${frPlural(f.repeated, 'répétée')} au-delà de la cadence`;
    if (f.fault === 'frames') return `${f.step} : ${n$(f.shown)} images pour ${n$(f.requested)} (${f.allowed === 0 ? 'aucun écart permis' : `± ${n$(f.allowed)} permis`})`;
    return `${f.step} : ${n$(f.dropped)} ${frPlural(f.dropped, 'image perdue', 'images perdues')} (au plus ${n$(f.max)})`;
  }
  if (f.fault === 'cadence') return `${f.step}: ${enPlural(f.skipped, 'clip frame', n$)} skipped, ${n$(f.repeated)} repeated beyond the cadence`;
  if (f.fault === 'frames') return `${f.step}: ${n$(f.shown)} of ${n$(f.requested)} frames (${f.allowed === 0 ? 'exact' : `± ${n$(f.allowed)}`} allowed)`;
  return `${f.step}: ${enPlural(f.dropped, 'dropped frame', n$)} (at most ${n$(f.max)})`;
}
const shortInspection = (language: ReasonLanguage, n$: Num) => (x: ShortInspection) => {
  const lacks = [...(x.ms !== undefined ? [`${n$(x.ms)} ms`] : []), ...(x.azimuthDeg !== undefined ? [`${n$(x.azimuthDeg)}° ${language === 'fr' ? 'd’azimut' : 'of azimuth'}`] : [])];
  return `stimulus ${x.stimulus}${COLON[language]}${lacks.join(', ')}`;
};

/**
 * What each rule measured, in words, per language: a verdict stores these facts (`RuleOutcome.facts`) next to its
 * English detail, so each reader words them in their own language. Keyed by what was found, not by rule.
 */
export const DETAIL_WORDS = {
  off: phrase<{}>(() => 'turned off', () => 'règle désactivée'),
  noCheckStimulus: phrase<{ kind: CheckKind }>(
    (f) => `no ${f.kind} stimulus in the playlist`,
    (f) => `aucun stimulus ${KIND_FR[f.kind]} dans la liste`,
  ),
  checksRight: phrase<{ total: number }>(
    (f, n) => `${n(f.total)} of ${n(f.total)} right`,
    (f, n) => `${n(f.total)} sur ${n(f.total)} ${frPlural(f.total, 'juste')}`,
  ),
  checksMissed: phrase<{ missed: number; total: number; answers: CheckMiss[] }>(
    (f, n) => `${n(f.missed)} of ${enStimuli(f.total, n)} missed: ${f.answers.map(checkMiss('en')).join(SEP.en)}`,
    (f, n) => `${n(f.missed)} ${frPlural(f.missed, 'stimulus', 'stimuli')} sur ${n(f.total)} ${frPlural(f.missed, 'manqué')} : ${f.answers.map(checkMiss('fr')).join(SEP.fr)}`,
  ),
  notRatingScale: phrase<{}>(() => 'not a rating scale', () => 'pas une échelle de notation'),
  tooFewRatings: phrase<{ ratings: number; needs: number }>(
    (f, n) => `${enPlural(f.ratings, 'rating', n)}, the rule needs ${n(f.needs)}`,
    (f, n) => `${n(f.ratings)} ${frPlural(f.ratings, 'note')}, la règle en demande ${n(f.needs)}`,
  ),
  variance: phrase<{ variance: number; ratings: number; minimum: number }>(
    (f, n) => `variance ${n(f.variance)} of ${n(f.ratings)} ratings (minimum ${n(f.minimum)})`,
    (f, n) => `variance ${n(f.variance)} de ${n(f.ratings)} notes (minimum ${n(f.minimum)})`,
  ),
  tooFewSessions: phrase<{ sessions: number; needs: number }>(
    (f, n) => `${enPlural(f.sessions, 'other accepted session', n)}, the rule needs ${n(f.needs)}`,
    (f, n) => `${n(f.sessions)} ${frPlural(f.sessions, 'autre session acceptée', 'autres sessions acceptées')}, la règle en demande ${n(f.needs)}`,
  ),
  tooFewShared: phrase<{ stimuli: number; needs: number }>(
    (f, n) => `${enStimuli(f.stimuli, n)} rated by others too, the rule needs ${n(f.needs)}`,
    (f, n) => `${n(f.stimuli)} ${frPlural(f.stimuli, 'stimulus noté', 'stimuli notés')} aussi par d’autres, la règle en demande ${n(f.needs)}`,
  ),
  noSpread: phrase<{}>(() => 'no spread to correlate (see minVariance)', () => 'aucune dispersion à corréler (voir la variance minimale)'),
  correlation: phrase<{ r: number; sessions: number; stimuli: number; minimum: number }>(
    (f, n) => `Pearson r ${n(f.r)} with the MOS of ${n(f.sessions)} other sessions over ${n(f.stimuli)} stimuli (minimum ${n(f.minimum)})`,
    (f, n) => `r de Pearson ${n(f.r)} avec la MOS de ${n(f.sessions)} autres sessions sur ${n(f.stimuli)} stimuli (minimum ${n(f.minimum)})`,
  ),
  noAnswer: phrase<{}>(() => 'no answer', () => 'aucune réponse'),
  allShown: phrase<{ answers: number }>(
    (f, n) => `${enPlural(f.answers, 'answer', n)}, every stimulus shown to the end`,
    (f, n) => `${n(f.answers)} ${frPlural(f.answers, 'réponse')}, chaque stimulus montré jusqu’au bout`,
  ),
  notShown: phrase<{ count: number; answers: number; examples: NotShown[] }>(
    (f, n) => `${n(f.count)} of ${enPlural(f.answers, 'answer', n)} not shown to the end: ${examples('en', f.examples, f.count, notShown('en'))}`,
    (f, n) => `${n(f.count)} ${frPlural(f.count, 'réponse')} sur ${n(f.answers)} ${frPlural(f.count, 'pas montrée', 'pas montrées')} jusqu’au bout : ${examples('fr', f.examples, f.count, notShown('fr'))}`,
  ),
  noTimedStep: phrase<{}>(() => 'no step timed by its duration', () => 'aucune étape minutée par sa durée'),
  mistimed: phrase<{ count: number; timed: number; sharePct: number; maxPct: number; examples: Array<{ stimulus: number; fault: ExposureFault }> }>(
    (f, n) =>
      `${n(f.count)} of ${enPlural(f.timed, 'timed answer', n)} mistimed (${n(f.sharePct)} %, maximum ${n(f.maxPct)} %)${f.examples.length ? `: ${examples('en', f.examples, f.count, (x) => `stimulus ${x.stimulus}: ${exposureInWords(x.fault, 'en')}`)}` : ''}`,
    (f, n) =>
      `${n(f.count)} ${frPlural(f.count, 'réponse minutée', 'réponses minutées')} sur ${n(f.timed)} ${frPlural(f.count, 'mal minutée', 'mal minutées')} (${n(f.sharePct)} %, maximum ${n(f.maxPct)} %)${f.examples.length ? ` : ${examples('fr', f.examples, f.count, (x) => `stimulus ${x.stimulus} : ${exposureInWords(x.fault, 'fr')}`)}` : ''}`,
  ),
  fullscreenNotRequired: phrase<{}>(() => 'the job does not require fullscreen', () => 'l’étude n’exige pas le plein écran'),
  noWindowState: phrase<{}>(() => 'no timing record tells the window state', () => 'aucun relevé de minutage n’indique l’état de la fenêtre'),
  allFullscreen: phrase<{ answers: number }>(
    (f, n) => `${enPlural(f.answers, 'answer', n)} given in fullscreen`,
    (f, n) => `${n(f.answers)} ${frPlural(f.answers, 'réponse donnée', 'réponses données')} en plein écran`,
  ),
  outsideFullscreen: phrase<{ count: number; answers: number }>(
    (f, n) => `${n(f.count)} of ${enPlural(f.answers, 'answer', n)} given outside fullscreen`,
    (f, n) => `${n(f.count)} ${frPlural(f.count, 'réponse')} sur ${n(f.answers)} ${frPlural(f.count, 'donnée', 'données')} hors du plein écran`,
  ),
  noAnswerTime: phrase<{}>(() => 'no answer time recorded', () => 'aucun temps de réponse enregistré'),
  fastest: phrase<{ ms: number; minimum: number }>(
    (f, n) => `fastest answer ${n(f.ms)} ms (minimum ${n(f.minimum)} ms)`,
    (f, n) => `réponse la plus rapide en ${n(f.ms)} ms (minimum ${n(f.minimum)} ms)`,
  ),
  tooFast: phrase<{ count: number; answers: number; minimum: number; examples: Array<{ stimulus: number; ms: number }> }>(
    (f, n) => `${n(f.count)} of ${enPlural(f.answers, 'answer', n)} faster than ${n(f.minimum)} ms: ${examples('en', f.examples, f.count, (x) => `stimulus ${x.stimulus} in ${n(x.ms)} ms`)}`,
    (f, n) => `${n(f.count)} ${frPlural(f.count, 'réponse')} sur ${n(f.answers)} en moins de ${n(f.minimum)} ms : ${examples('fr', f.examples, f.count, (x) => `stimulus ${x.stimulus} en ${n(x.ms)} ms`)}`,
  ),
  noVisualTest: phrase<{}>(() => 'the job runs no visual test', () => 'l’étude ne fait passer aucun test visuel'),
  visualPassed: phrase<{}>(() => 'passed, as the session logs show', () => 'réussis, d’après les journaux de session'),
  visualFailed: phrase<{}>(() => 'failed, as the session logs show', () => 'échoués, d’après les journaux de session'),
  visualUnknown: phrase<{}>(() => 'no session log shows the visual tests passed', () => 'aucun journal de session ne montre les tests visuels réussis'),
  noInspection: phrase<{}>(() => 'no 3D object inspected', () => 'aucun objet 3D examiné'),
  inspection: phrase<{ count: number; inspected: number; ms: number; azimuthDeg: number; maxShortPct: number; examples: ShortInspection[] }>(
    (f, n) =>
      `${n(f.count)} of ${enPlural(f.inspected, 'inspected answer', n)} short (at least ${n(f.ms)} ms and ${n(f.azimuthDeg)}° of azimuth, at most ${n(f.maxShortPct)} % short)${f.examples.length ? `: ${examples('en', f.examples, f.count, shortInspection('en', n))}` : ''}`,
    (f, n) =>
      `${n(f.count)} ${frPlural(f.count, 'réponse examinée', 'réponses examinées')} sur ${n(f.inspected)} trop ${frPlural(f.count, 'courte', 'courtes')} (au moins ${n(f.ms)} ms et ${n(f.azimuthDeg)}° d’azimut, au plus ${n(f.maxShortPct)} % trop courtes)${f.examples.length ? ` : ${examples('fr', f.examples, f.count, shortInspection('fr', n))}` : ''}`,
  ),
};

export type DetailKey = keyof typeof DETAIL_WORDS;
/** What a rule measured: the key of its wording and the numbers (and quoted answers) the wording needs. */
export type DetailFacts = { [K in DetailKey]: { key: K } & Parameters<(typeof DETAIL_WORDS)[K]['en']>[0] }[DetailKey];

/** What a rule measured, in words, in the reader's language. */
export function detailInWords(facts: DetailFacts, language: ReasonLanguage = 'en'): string {
  const words = DETAIL_WORDS[facts.key][language] as (f: DetailFacts, n: Num) => string;
  const text = words(facts, NUMBER[language]);
  return language === 'fr' ? frenchTypography(text) : text;
}

/** The kind of a rule; an unknown rule name counts as analysis, so it can never refuse a payment. */
export function ruleKind(rule: string): RuleKind {
  return (RULE_KIND as Record<string, RuleKind>)[rule] ?? 'analysis';
}

/**
 * One failed rule as a reason: the rule in words, then what was measured, in the reader's language. A verdict stored
 * before verdicts kept their facts has only its English detail, which is shown as it is.
 */
export function reasonInWords(outcome: { rule: string; detail: string; facts?: DetailFacts }, language: ReasonLanguage = 'en'): string {
  const detail = outcome.facts ? detailInWords(outcome.facts, language) : outcome.detail;
  return `${ruleInWords(outcome.rule, language)} (${detail})`;
}

export interface TwoVerdicts {
  /** Payment: no payment rule failed. */
  approved: boolean;
  /** Analysis: no rule failed at all. */
  included: boolean;
}

/** Both verdicts from a list of outcomes (the stored JSON). */
export function verdictsOf(outcomes: ReadonlyArray<{ rule: string; status: string }>): TwoVerdicts {
  const failed = outcomes.filter((o) => o.status === 'failed');
  return { approved: failed.every((o) => ruleKind(o.rule) !== 'payment'), included: failed.length === 0 };
}
