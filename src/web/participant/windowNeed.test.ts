import { describe, expect, it } from 'vitest';
import { layoutSingle } from '../stage/layouts.js';
import type { PresentationStep } from '../stage/types.js';
import { windowNeed, windowNeedFor } from './windowNeed.js';

/** A stage below an 80 px question band in a window; its canvas in device pixels at `ratio`. */
function stageIn(win: { innerWidth: number; innerHeight: number }, ratio: number) {
  const canvas = { width: Math.round(win.innerWidth * ratio), height: Math.round((win.innerHeight - 80) * ratio), ratio };
  return { devicePixels: () => canvas, css: { width: canvas.width / ratio, height: canvas.height / ratio, pixelRatio: ratio } };
}

const clip = (canvas: { width: number; height: number; pixelRatio: number }): PresentationStep[] => [
  { label: 'S', items: [layoutSingle({ ...canvas, scaling: 'integer' }, { media: 'clip', size: { width: 960, height: 540 } })], end: { kind: 'duration', ms: 1000 } },
];

describe('windowNeed: the window a stimulus needs at its scaling', () => {
  it('an 800×600 window cannot show a 960×540 image unshrunk: it needs 960 × 620 (the band included)', () => {
    const win = { innerWidth: 800, innerHeight: 600 };
    const stage = stageIn(win, 1);
    expect(windowNeed(clip(stage.css), stage, win)).toEqual({ width: 960, height: 620, current: { width: 800, height: 600 }, pixelRatio: 1 });
  });

  it('at 125 % the same image needs 960 device pixels: a 768 CSS px wide window, 512 high with the band', () => {
    const win = { innerWidth: 700, innerHeight: 500 };
    const stage = stageIn(win, 1.25);
    expect(windowNeed(clip(stage.css), stage, win)).toMatchObject({ width: 768, height: 512, pixelRatio: 1.25 });
  });

  it('nothing is needed once it fits', () => {
    const win = { innerWidth: 1280, innerHeight: 720 };
    const stage = stageIn(win, 1);
    expect(windowNeed(clip(stage.css), stage, win)).toBeNull();
  });

  it('windowNeedFor: a need in device pixels of a narrower room (piiface, left of its panel) is added to the window', () => {
    // A 512×512 face at 125 %: the room left of the 360 px panel in a 700×500 window is 425 × 625 device px.
    const room = { devicePixels: () => ({ width: 425, height: 625, ratio: 1.25 }) };
    expect(windowNeedFor([{ width: 512, height: 512 }], room, { innerWidth: 700, innerHeight: 500 })).toEqual({
      width: 770,
      height: 500,
      current: { width: 700, height: 500 },
      pixelRatio: 1.25,
    });
    expect(windowNeedFor([], room, { innerWidth: 700, innerHeight: 500 })).toBeNull();
  });
});
