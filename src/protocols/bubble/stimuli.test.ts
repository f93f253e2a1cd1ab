import { describe, expect, it } from 'vitest';
import { orderStimuli, readBubbleStimuli } from './stimuli.js';
import { CENTERING_HOLD_MS, CENTERING_TICK_MS, inCentreZone, isCentered, nextHold } from './centering.js';
import { emotionModalBox, dialogTop } from './modalLayout.js';

const m = { stimuli_id: 1, source: 'j/a.png', width: 10, height: 10, blur: 2, radius: 3, golden: false };

describe('bubble stimuli, centering and dialog placement', () => {
  it('reads bubble stimuli and refuses other shapes', () => {
    expect(readBubbleStimuli([{ stimuli_id: 1, sourceA: m }])).toHaveLength(1);
    expect(readBubbleStimuli([{ stimuli_id: 1, sourceA: m, sourceB: m }])).toHaveLength(1);
    expect(readBubbleStimuli([{ stimuliId: 1, sourceA: 'j/a.png', reversed: false }])).toBeNull();
    expect(readBubbleStimuli([{ stimuli_id: 1, sourceA: { ...m, blur: 'x' } }])).toBeNull();
  });

  it('rs=1 shuffles (a permutation, input untouched); rs=0 keeps the order', () => {
    const list = [1, 2, 3, 4, 5];
    expect(orderStimuli(list, false)).toEqual(list);
    let seed = 3;
    const rand = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const shuffled = orderStimuli(list, true, rand);
    expect([...shuffled].sort()).toEqual(list);
    expect(shuffled).not.toEqual(list);
    expect(list).toEqual([1, 2, 3, 4, 5]);
  });

  it('centering: 2000 ms in the zone with 50 ms ticks; leaving the zone starts again', () => {
    let held = 0;
    for (let i = 0; i < CENTERING_HOLD_MS / CENTERING_TICK_MS - 1; i++) held = nextHold(held, true);
    expect(isCentered(held)).toBe(false);
    expect(isCentered(nextHold(held, true))).toBe(true);
    expect(nextHold(held, false)).toBe(0);
    expect(inCentreZone({ x: 650, y: 360 }, { x: 640, y: 360 })).toBe(true);
    expect(inCentreZone({ x: 700, y: 360 }, { x: 640, y: 360 })).toBe(false);
    expect(inCentreZone(null, { x: 640, y: 360 })).toBe(false);
  });

  it('emotion modal: 33 %/33 %, or 42.5 %/15 % with the question along the test; dialogs at 40 % height', () => {
    expect(emotionModalBox(false)).toEqual({ left: '33%', width: '33%' });
    expect(emotionModalBox(true)).toEqual({ left: '42.5%', width: '15%' });
    expect(dialogTop(720)).toBe(288);
  });
});
