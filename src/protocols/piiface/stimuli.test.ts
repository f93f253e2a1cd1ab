import { describe, expect, it } from 'vitest';
import { faceRect, PANEL_WIDTH_PX } from './layout.js';
import { readPiifaceStimuli } from './stimuli.js';

describe('piiface playlist stimuli', () => {
  it('keeps {stimuli_id, type, source} stimuli', () => {
    const list = [{ stimuli_id: 4, type: 'piiface/test/blur6/5', source: 'job/faces/a.jpg' }];
    expect(readPiifaceStimuli(list)).toEqual(list);
    expect(readPiifaceStimuli([])).toEqual([]);
  });

  it('refuses a playlist of another shape (a generic or bubble stimulus)', () => {
    expect(readPiifaceStimuli([{ stimuliId: 4, sourceA: 'a.jpg', reversed: false }])).toBeNull();
    expect(readPiifaceStimuli([{ stimuli_id: 4, sourceA: { source: 'a.jpg' } }])).toBeNull();
    expect(readPiifaceStimuli([{ stimuli_id: '4', type: 't', source: 'a.jpg' }])).toBeNull();
    expect(readPiifaceStimuli([null])).toBeNull();
  });
});

describe('face layout', () => {
  it('centres the face at its natural size left of the answer panel', () => {
    expect(faceRect({ width: 1280, height: 720 }, { width: 320, height: 320 })).toEqual({
      x: 16 + Math.round((1280 - PANEL_WIDTH_PX - 32 - 320) / 2),
      y: 16 + Math.round((720 - 32 - 320) / 2),
      width: 320,
      height: 320,
    });
  });

  it('scales a face down to fit, never up', () => {
    const rect = faceRect({ width: 1000, height: 600 }, { width: 1024, height: 1024 });
    expect(rect.height).toBe(568);
    expect(rect.width).toBe(568);
    expect(rect.x + rect.width).toBeLessThanOrEqual(1000 - PANEL_WIDTH_PX);
  });
});
