import { describe, expect, it } from 'vitest';
import { jobOf, planContext, stimulusOf } from '../common/levels/testSupport.js';
import { pairComparison } from '../pair/index.js';
import pairWeb from '../pair/web.js';
import { mldsPair } from './index.js';
import mldsPairWeb from './web.js';

describe('mlds_pair', () => {
  it('is a pair comparison with its own name, route, playlist path and instruction image', () => {
    expect(mldsPair.name).toBe('mlds_pair');
    expect(mldsPair.route).toBe('mlds_pair');
    expect(mldsPair.playlistPath).toBe('getmldspc');
    expect(mldsPair.instructionImage).toBe('/instructions/mlds-pair.svg');
    expect(mldsPair.instructionImage).not.toBe(pairComparison.instructionImage);
  });

  it('plans, labels and values exactly like a pair: left 0, right 1', () => {
    const job = jobOf({ subjectiveProtocol: 'mlds_pair', category_id: 2, displayMs: 700 });
    const s = stimulusOf({ sourceA: 'j/a.jpg', sourceB: 'j/b.jpg' });
    expect(mldsPairWeb).toBe(pairWeb);
    expect(mldsPairWeb.plan(s, planContext(mldsPairWeb.params(job)))).toEqual(pairWeb.plan(s, planContext(pairWeb.params(job))));
    expect(mldsPairWeb.categories).toEqual([1, 2, 3, 4]);
    expect([mldsPairWeb.value('optionimageA', s), mldsPairWeb.value('optionimageB', s)]).toEqual([0, 1]);
  });
});
