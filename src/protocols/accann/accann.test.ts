import { describe, expect, it } from 'vitest';
import { en } from '../../web/i18n/en.js';
import { fr } from '../../web/i18n/fr.js';
import { levelGroups } from '../common/levels/levels.js';
import { jobOf, planContext, stimulusOf } from '../common/levels/testSupport.js';
import absoluteCategoryRating from '../acr/web.js';
import accann from './web.js';
import { ACCEPTABILITY_SCALE } from './scale.js';

describe('acceptability value mapping', () => {
  it('two levels (acceptable, not acceptable) carrying the three labels; values 2, 1, 0', () => {
    const groups = levelGroups(ACCEPTABILITY_SCALE).map((g) => g.map((l) => [en[l.label], l.value]));
    expect(groups).toEqual([
      [
        ['Not Annoying', 2],
        ['Annoying but Acceptable', 1],
      ],
      [['Not Acceptable', 0]],
    ]);
    expect(ACCEPTABILITY_SCALE.levels.map((l) => fr[l.label])).toEqual(['Pas Gênante', 'Gênante mais Acceptable', 'Pas Acceptable']);
    expect(accann.value(0, stimulusOf())).toBe(0);
  });
});

describe('acceptability plan', () => {
  it('presents like ACR: one image ending on a click or the display time, or one video (categoryTest 5)', () => {
    const job = jobOf({ subjectiveProtocol: 'acceptability_annoyance', displayMs: 600 });
    const s = stimulusOf({ source: 'job/a.jpg' });
    expect(accann.plan(s, planContext(accann.params(job)))).toEqual(absoluteCategoryRating.plan(s, planContext(absoluteCategoryRating.params(job))));
    expect(accann.plan(s, planContext(accann.params(job)))[0]!.end).toEqual({ kind: 'click', maxMs: 600 });
    expect(accann.plan(s, planContext(accann.params({ ...job, category_id: 5 })))[0]!.end).toEqual({ kind: 'video-end' });
    expect(accann.categories).toEqual([1, 2, 5]);
  });
});
