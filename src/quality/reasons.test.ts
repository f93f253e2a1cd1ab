import { describe, expect, it } from 'vitest';
import { DETAIL_SAMPLES, englishFragments, englishIn, typographyFaults } from '../../testkit/french-scan.js';
import { detailInWords, ruleInWords, RULE_WORDS } from './reasons.js';

describe('the reasons table', () => {
  const fragments = englishFragments();

  it('words every rule and every measured detail in French: no English fragment left, French typography', () => {
    const french = [...Object.keys(RULE_WORDS).map((rule) => ruleInWords(rule, 'fr')), ...Object.values(DETAIL_SAMPLES).map((facts) => detailInWords(facts, 'fr'))];
    for (const text of french) {
      expect(englishIn(text, fragments), text).toEqual([]);
      expect(typographyFaults(text), text).toEqual([]);
    }
  });

  it('says each detail differently in the two languages, and in English as the stored detail always did', () => {
    for (const facts of Object.values(DETAIL_SAMPLES)) expect(detailInWords(facts, 'fr'), facts.key).not.toBe(detailInWords(facts, 'en'));
    expect(detailInWords(DETAIL_SAMPLES.variance)).toBe('variance 0.109 of 8 ratings (minimum 0.15)');
    expect(detailInWords(DETAIL_SAMPLES.checksMissed)).toBe('2 of 3 stimuli missed: stimulus 206: answered Excellent, expected Bad; stimulus 207: answered Very annoying, expected Imperceptible ± 1');
    expect(detailInWords(DETAIL_SAMPLES.checksMissed, 'fr')).toBe(
      '2 stimuli sur 3 manqués\u00a0: stimulus 206\u00a0: répondu Excellente, attendu Mauvaise\u202f; stimulus 207\u00a0: répondu Très gênante, attendu Imperceptible ± 1',
    );
  });
});
