import { describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { BubbleScreeningBody, RatingBody } from '../../contract/payloads.js';
import { parseSizeLog } from '../flow/sizeLog.js';
import { emotionValue, pairValue, ratingBody, screeningBody } from './payloads.js';

const session = { session_id: 12, session_token: 'tok_0123456789abcdef' };

describe('bubble payloads (SPEC §3, §5)', () => {
  it('the screening body is the contract shape, with logs null and both lists', () => {
    const samples = { mediaA: [{ x: 1.5, y: 2, t: 0, vt: 0 }], mediaB: [] };
    const body = screeningBody(5, session, samples, 2);
    expect(body).toEqual({ stimuli_id: 5, session_id: 12, session_token: 'tok_0123456789abcdef', mouse_logs: { mediaA: [{ x: 1.5, y: 2, t: 0, vt: 0 }], mediaB: [] }, screening_no: 2, logs: null });
    expect(Value.Check(BubbleScreeningBody, body)).toBe(true);
  });

  it('the rating body is the contract shape', () => {
    const body = ratingBody(5, session, 3, 1, 'inner:1x1;outer:1x1;screen:1x1;fullscreen:0;oit:1');
    expect(body).toEqual({ stimuli_id: 5, session_id: 12, session_token: 'tok_0123456789abcdef', value: 3, nbReplay: 1, logs: 'inner:1x1;outer:1x1;screen:1x1;fullscreen:0;oit:1' });
    expect(Value.Check(RatingBody, body)).toBe(true);
    expect(parseSizeLog(body.logs!)).toMatchObject({ oit: '1', fullscreen: '0' });
  });

  it('values: First 0, Last 1; emotion index + 1', () => {
    expect([pairValue('first'), pairValue('last')]).toEqual([0, 1]);
    expect([0, 1, 2, 3].map(emotionValue)).toEqual([1, 2, 3, 4]);
  });
});
