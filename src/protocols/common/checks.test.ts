import { describe, expect, it } from 'vitest';
import { en } from '../../web/i18n/en.js';
import { fr } from '../../web/i18n/fr.js';
import { PROTOCOLS } from '../registry.js';
import type { AnalysedRating, CheckRules } from '../types.js';

const answer = (value: number, spec: Record<string, unknown> = { source: 'a.png' }): AnalysedRating<any> => ({ stimulusId: 1, spec, value, attributes: () => ({}) });
const checksOf = (name: keyof typeof PROTOCOLS) => PROTOCOLS[name].checks as CheckRules;
/** A check answer by the label the participant's page shows, in both languages. */
const label = (rules: CheckRules, x: number | string) => {
  const key = rules.labelOf?.(x);
  return key ? [en[key], fr[key]] : null;
};

describe('check answers as the participant saw them', () => {
  it('ACR: a stored index is put on the check\'s scale (index 0 is score 5) and named by its level', () => {
    const acr = checksOf('absolute_category_rating');
    expect(acr.answerOf(answer(0))).toBe(5);
    expect(label(acr, 5)).toEqual(['Excellent', 'Excellente']);
    expect(label(acr, 1)).toEqual(['Bad', 'Mauvaise']);
  });

  it('DSIS, acceptability and piiface name their answers; choices and bubble keep them as written', () => {
    const dsis = checksOf('double_stimulus_impairment_scale');
    expect([dsis.answerOf(answer(5, { sourceA: 'r.png', sourceB: 'i.png' })), label(dsis, 5)]).toEqual([5, ['Imperceptible', 'Imperceptible']]);
    expect(label(dsis, 1)).toEqual(['Very annoying', 'Très gênante']);
    expect(label(checksOf('acceptability_annoyance'), 0)).toEqual(['Not Acceptable', 'Pas Acceptable']);
    const piiface = checksOf('piiface');
    expect([piiface.answerOf(answer(35)), label(piiface, 2)]).toEqual([2, ['Fear', 'Peur']]);
    // A pair's check names the better side of the study file, whatever the display order.
    const pair = checksOf('pair_comparison');
    expect(pair.answerOf(answer(0, { sourceA: 'a.png', sourceB: 'b.png', reversed: true }))).toBe('B');
    expect(label(pair, 'B')).toBeNull();
    expect(label(checksOf('bubble'), 1)).toBeNull();
  });
});
