import { describe, expect, it } from 'vitest';
import { PLAYLIST_PATH_OF_PROTOCOL, ROUTE_OF_PROTOCOL } from '../../../contract/protocols.js';
import { jobOf, planContext, stimulusOf } from '../levels/testSupport.js';
import { pairComparison } from '../pair/index.js';
import { mldsPair } from './index.js';

describe('mlds_pair', () => {
  it('is a pair comparison with its own name, playlist path and instruction image', () => {
    expect(mldsPair.name).toBe('mlds_pair');
    expect(ROUTE_OF_PROTOCOL.mlds_pair).toBe('mlds_pair');
    expect(PLAYLIST_PATH_OF_PROTOCOL.mlds_pair).toBe('getmldspc');
    expect(mldsPair.instructionImage).toBe('/instructions/mlds-pair.svg');
    expect(mldsPair.instructionImage).not.toBe(pairComparison.instructionImage);
  });

  it('plans, labels and values exactly like a pair: left 0, right 1', () => {
    const job = jobOf({ subjectiveProtocol: 'mlds_pair', category_id: 2, displayMs: 700 });
    const s = stimulusOf({ sourceA: 'j/a.jpg', sourceB: 'j/b.jpg' });
    expect(mldsPair.plan(s, planContext(mldsPair.params(job)))).toEqual(pairComparison.plan(s, planContext(pairComparison.params(job))));
    expect(mldsPair.categories).toEqual([1, 2, 3, 4]);
    expect(mldsPair.ResponseView).toBe(pairComparison.ResponseView);
    expect([mldsPair.value('optionimageA', s), mldsPair.value('optionimageB', s)]).toEqual([0, 1]);
  });
});
