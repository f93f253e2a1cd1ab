import { describe, expect, it } from 'vitest';
import { DEFAULT_PAUSE_MS, isFreeTask, parseBubbleQuery } from './bubbleQuery.js';

describe('bubble query (SPEC §2)', () => {
  it('defaults: pause 1000 ms, no repetition, rs 0, oit 1, and the stimulus values for the rest', () => {
    expect(parseBubbleQuery('')).toEqual({
      displayMs: null,
      pauseMs: DEFAULT_PAUSE_MS,
      blur: null,
      width: null,
      height: null,
      singleStimulus: false,
      repetitions: 0,
      repetitionPossible: false,
      bubbleDiameter: null,
      randomOrder: false,
      orderInTask: 1,
      freeTask: false,
      emotion: false,
    });
  });

  it('reads every parameter', () => {
    const q = parseBubbleQuery('?dd=4000&pt=500&bl=12.5&w=640&h=360&ss=1&nr=2&rp=1&bd=90&rs=1&oit=3&ft=1&emotion=1&platform=nantes');
    expect(q).toEqual({
      displayMs: 4000,
      pauseMs: 500,
      blur: 12.5,
      width: 640,
      height: 360,
      singleStimulus: true,
      repetitions: 2,
      repetitionPossible: true,
      bubbleDiameter: 90,
      randomOrder: true,
      orderInTask: 3,
      freeTask: true,
      emotion: true,
    });
  });

  it('unreadable or negative numbers fall back to the defaults; flags are only "1"', () => {
    const q = parseBubbleQuery('?dd=abc&pt=-5&bl=&w=0&nr=-1&oit=0&ss=true&rp=0&bd=x');
    expect(q.displayMs).toBeNull();
    expect(q.pauseMs).toBe(DEFAULT_PAUSE_MS);
    expect(q.blur).toBeNull();
    expect(q.width).toBeNull();
    expect(q.repetitions).toBe(0);
    expect(q.orderInTask).toBe(1);
    expect(q.singleStimulus).toBe(false);
    expect(q.repetitionPossible).toBe(false);
    expect(q.bubbleDiameter).toBeNull();
    // bl=0 and pt=0 are real values (no blur, no pause).
    expect(parseBubbleQuery('?bl=0&pt=0')).toMatchObject({ blur: 0, pauseMs: 0 });
  });

  it('free task: ft=1, or a single stimulus without the emotion question', () => {
    expect(isFreeTask(parseBubbleQuery('?ft=1'))).toBe(true);
    expect(isFreeTask(parseBubbleQuery('?ss=1'))).toBe(true);
    expect(isFreeTask(parseBubbleQuery('?ss=1&emotion=1'))).toBe(false);
    expect(isFreeTask(parseBubbleQuery(''))).toBe(false);
  });
});
