import { describe, expect, it } from 'vitest';
import { faceItem, faceRect, faceRoom, PANEL_WIDTH_PX } from './layout.js';
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

  it('at 125 % (integer) the face is drawn one device pixel per pixel, left of the panel, at a whole device pixel', () => {
    const item = faceItem({ width: 1024, height: 640, pixelRatio: 1.25, scaling: 'integer' }, 'face.jpg', { width: 512, height: 512 });
    // The room left of the panel: (1024 − 360) × 1.25 = 830 device px wide, 800 high; margins of 20 device px.
    expect(item.pixels).toEqual({ scaling: 'integer', scale: 1, filter: 'nearest', device: { x: 159, y: 144, width: 512, height: 512 }, fits: true });
    expect(item.rect).toEqual({ x: 159 / 1.25, y: 144 / 1.25, width: 512 / 1.25, height: 512 / 1.25 });
    expect(faceRoom({ width: 1280, height: 800, ratio: 1.25 })).toEqual({ width: 830, height: 800, ratio: 1.25 });
  });

  it('never shrunk at integer scaling: a face larger than the room says it does not fit (the page asks for a larger window)', () => {
    const item = faceItem({ width: 1000, height: 600, pixelRatio: 1, scaling: 'integer' }, 'face.jpg', { width: 1024, height: 1024 });
    expect(item.pixels).toMatchObject({ fits: false, device: { width: 1024, height: 1024 } });
    expect(faceItem({ width: 1000, height: 600, scaling: 'fit' }, 'face.jpg', { width: 1024, height: 1024 })).toEqual({
      media: 'face.jpg',
      rect: faceRect({ width: 1000, height: 600 }, { width: 1024, height: 1024 }),
    });
  });
});
