/**
 * The quality rules in words (README "Quality control"): what each rule decides (payment or analysis) and the
 * sentence a researcher, a participant or a platform reads instead of the rule's code name. No imports, so the
 * console (browser) and the server share it.
 */

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
  return (RULE_WORDS as Record<string, Record<ReasonLanguage, string>>)[rule]?.[language] ?? rule;
}

/** The kind of a rule; an unknown rule name counts as analysis, so it can never refuse a payment. */
export function ruleKind(rule: string): RuleKind {
  return (RULE_KIND as Record<string, RuleKind>)[rule] ?? 'analysis';
}

/** One failed rule as a reason: the rule in words, then what was measured. */
export function reasonInWords(outcome: { rule: string; detail: string }, language: ReasonLanguage = 'en'): string {
  return `${ruleInWords(outcome.rule, language)} (${outcome.detail})`;
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
