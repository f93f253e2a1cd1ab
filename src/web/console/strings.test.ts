import { describe, expect, it } from 'vitest';
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
});
