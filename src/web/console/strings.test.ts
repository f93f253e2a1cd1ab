import { describe, expect, it } from 'vitest';
import { consoleTexts, englishFragments, englishIn, typographyFaults } from '../../../testkit/french-scan.js';
import { PROTOCOL_NAMES } from '../../protocols/registry.js';
import type { DropOut } from '../../server/console/stats.js';
import { CONSOLE_STRINGS, fill } from './strings.js';

// Every phase code the server sends for "where participants left" (src/server/console/stats.ts).
const PHASES: Array<DropOut['phase']> = ['noLogs', 'eligibility', 'visualTests', 'failedEligibility', 'welcome', 'consent', 'instructions', 'loading', 'training', 'stimulus', 'failure', 'other'];

describe('console wording', () => {
  it('names every drop-out phase in English and in French (rules are worded by src/quality/reasons.ts)', () => {
    for (const t of Object.values(CONSOLE_STRINGS)) {
      expect(Object.keys(t.phases).sort()).toEqual([...PHASES].sort());
    }
    expect(fill(CONSOLE_STRINGS.fr.phases.stimulus!, { n: 3 })).toBe('stimulus 3');
    expect(CONSOLE_STRINGS.fr.phases.instructions).toBe('consignes');
  });

  it('names every protocol in words in both languages, not by its code', () => {
    for (const t of Object.values(CONSOLE_STRINGS)) {
      for (const name of PROTOCOL_NAMES) expect(t.protocolNames[name], name).toMatch(/^\p{Lu}[\p{L} ()-]+$/u);
    }
    expect(CONSOLE_STRINGS.fr.protocolNames.absolute_category_rating).toBe('Notation sur une échelle de catégories (ACR)');
  });

  it('writes French with French typography: no-break spaces before « : ; ! ? » and inside « », curly apostrophes', () => {
    const french = consoleTexts().map((p) => p.fr);
    expect(french.flatMap(typographyFaults)).toEqual([]);
    expect(CONSOLE_STRINGS.fr.busy).toBe('Trop de connexions en ce moment\u00a0: réessayez dans quelques secondes.');
    expect(CONSOLE_STRINGS.fr.confirmStatus.open).toBe('Ouvrir l’étude aux nouveaux participants\u202f?');
    expect(CONSOLE_STRINGS.fr.signInSlowed(30)).toContain('viennent d’autres adresses\u00a0: un navigateur');
  });

  it('leaves no English text in the French table (each English fragment its French counterpart lacks)', () => {
    const fragments = englishFragments();
    expect(fragments).toEqual(expect.arrayContaining(['Studies', 'None', 'Completions per hour', 'answered Excellent', 'No results']));
    const french = consoleTexts().map((p) => p.fr.replace(/\{\w+\}/g, ''));
    expect(french.flatMap((text) => englishIn(text, fragments).map((fragment) => `${fragment} in « ${text} »`))).toEqual([]);
    // « Aucune » for the rules (feminine), as the screening table's neighbours say « Aucun ».
    expect([CONSOLE_STRINGS.en.noRules, CONSOLE_STRINGS.fr.noRules]).toEqual(['None', 'Aucune']);
  });
});
