import { describe, expect, it } from 'vitest';
import { emotionValue, pairValue } from './payloads.js';

describe('bubble values (SPEC §5)', () => {
  it('First 0, Last 1; emotion index + 1', () => {
    expect([pairValue('first'), pairValue('last')]).toEqual([0, 1]);
    expect([0, 1, 2, 3].map(emotionValue)).toEqual([1, 2, 3, 4]);
  });
});
