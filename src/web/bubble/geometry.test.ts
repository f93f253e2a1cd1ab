import { describe, expect, it } from 'vitest';
import { AREA_FACTOR, bubbleLayout, screenCentre, toCanvas, toStimulus } from './geometry.js';

describe('bubble geometry', () => {
  it('centres a 1.25x media area in the window and the media in the area, at scale 1 when it fits', () => {
    const layout = bubbleLayout({ width: 1280, height: 720 }, { width: 320, height: 180 });
    expect(layout.scale).toBe(1);
    expect(layout.area).toEqual({ x: 440, y: 247, width: 400, height: 225 });
    expect(layout.media).toEqual({ x: 40, y: 23, width: 320, height: 180 });
    // The media's centre is the screen's centre (where the centering mark is).
    expect(layout.area.x + layout.media.x + layout.media.width / 2).toBe(screenCentre({ width: 1280, height: 720 }).x);
    expect(layout.area.width / layout.media.width).toBe(AREA_FACTOR);
  });

  it('maps client px to stimulus px: the media top-left is (0, 0), its bottom-right (width, height)', () => {
    const layout = bubbleLayout({ width: 1280, height: 720 }, { width: 320, height: 180 });
    expect(toStimulus(480, 270, layout, { width: 320, height: 180 })).toEqual({ x: 0, y: 0 });
    expect(toStimulus(800, 450, layout, { width: 320, height: 180 })).toEqual({ x: 320, y: 180 });
    expect(toStimulus(500.5, 300.25, layout, { width: 320, height: 180 })).toEqual({ x: 20.5, y: 30.25 });
    // Outside the media the position is kept (negative or beyond the size).
    expect(toStimulus(470, 260, layout, { width: 320, height: 180 })).toEqual({ x: -10, y: -10 });
    expect(toCanvas(480, 270, layout)).toEqual({ x: 40, y: 23 });
  });

  it('scales everything down when the window is too small, and stimulus px stay those of the stimulus', () => {
    const layout = bubbleLayout({ width: 1000, height: 800 }, { width: 1600, height: 900 });
    expect(layout.scale).toBeCloseTo(0.5, 10);
    expect(layout.area).toEqual({ x: 0, y: 118, width: 1000, height: 563 });
    expect(layout.media).toEqual({ x: 100, y: 57, width: 800, height: 450 });
    const right = layout.area.x + layout.media.x + layout.media.width;
    const bottom = layout.area.y + layout.media.y + layout.media.height;
    expect(toStimulus(right, bottom, layout, { width: 1600, height: 900 })).toEqual({ x: 1600, y: 900 });
  });

  it('w/h drawn sizes map back onto the stimulus declared size', () => {
    // The study says 960x540; the query draws it at 480x270.
    const layout = bubbleLayout({ width: 1280, height: 720 }, { width: 480, height: 270 });
    const left = layout.area.x + layout.media.x;
    const top = layout.area.y + layout.media.y;
    expect(toStimulus(left + 240, top + 135, layout, { width: 960, height: 540 })).toEqual({ x: 480, y: 270 });
  });

  it('a smaller media of a pair is centred in the area made for the larger one', () => {
    const layout = bubbleLayout({ width: 1280, height: 720 }, { width: 400, height: 200 }, { width: 200, height: 100 });
    expect(layout.area).toEqual({ x: 390, y: 235, width: 500, height: 250 });
    expect(layout.media).toEqual({ x: 150, y: 75, width: 200, height: 100 });
  });
});
