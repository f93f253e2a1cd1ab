import { describe, expect, it } from 'vitest';
import { AREA_FACTOR, bubbleLayout, HINT_BAND_PX, mediaCentre, toStimulus } from './geometry.js';

const fullWindow = { x: 0, y: 0, width: 1280, height: 720 };

describe('bubble geometry', () => {
  it('centres a 1.25x media area on the canvas and the media in the area, at scale 1 when it fits', () => {
    const layout = bubbleLayout(fullWindow, { width: 320, height: 180 });
    expect(layout.scale).toBe(1);
    expect(layout.area).toEqual({ x: 440, y: 247, width: 400, height: 225 });
    expect(layout.media).toEqual({ x: 480, y: 270, width: 320, height: 180 });
    // The media's centre is the canvas's centre (where the centering mark is).
    expect(mediaCentre(layout)).toEqual({ x: 640, y: 360 });
    expect(layout.area.width / 320).toBe(AREA_FACTOR);
  });

  it('maps client px to stimulus px: the media top-left is (0, 0), its bottom-right (width, height)', () => {
    const layout = bubbleLayout(fullWindow, { width: 320, height: 180 });
    expect(toStimulus(480, 270, layout, { width: 320, height: 180 })).toEqual({ x: 0, y: 0 });
    expect(toStimulus(800, 450, layout, { width: 320, height: 180 })).toEqual({ x: 320, y: 180 });
    expect(toStimulus(500.5, 300.25, layout, { width: 320, height: 180 })).toEqual({ x: 20.5, y: 30.25 });
    // Outside the media the position is kept (negative or beyond the size).
    expect(toStimulus(470, 260, layout, { width: 320, height: 180 })).toEqual({ x: -10, y: -10 });
  });

  it('a canvas below the question band: client px are offset by the band, the media stays inside the canvas', () => {
    const canvas = { x: 0, y: 80, width: 1280, height: 640 };
    const layout = bubbleLayout(canvas, { width: 960, height: 540 });
    expect(layout.scale).toBeCloseTo(640 / (1.25 * 540), 10);
    expect(layout.area.y).toBeGreaterThanOrEqual(0);
    expect(layout.area.y + layout.area.height).toBeLessThanOrEqual(640);
    expect(toStimulus(layout.media.x, 80 + layout.media.y, layout, { width: 960, height: 540 })).toEqual({ x: 0, y: 0 });
  });

  it('below the question band, the media centre (the centering mark) is the window centre, as the prompt says', () => {
    // Playwright's 1280x720 window, the 80 px band above the canvas, the 40 px hint band: the mark was 60 px low.
    const layout = bubbleLayout({ x: 0, y: 80, width: 1280, height: 640 }, { width: 320, height: 180 }, { width: 320, height: 180 }, HINT_BAND_PX);
    expect(layout.scale).toBe(1);
    expect(mediaCentre(layout)).toEqual({ x: 640, y: 360 });
    expect(layout.area.y).toBeGreaterThanOrEqual(HINT_BAND_PX);
  });

  it('keeps the hint band free: the area starts below it and shrinks to fit the rest', () => {
    const canvas = { x: 0, y: 80, width: 1366, height: 688 };
    const layout = bubbleLayout(canvas, { width: 960, height: 540 }, { width: 960, height: 540 }, HINT_BAND_PX);
    expect(layout.scale).toBeCloseTo((688 - HINT_BAND_PX) / (1.25 * 540), 10);
    expect(layout.area.y).toBeGreaterThanOrEqual(HINT_BAND_PX);
    expect(layout.area.y + layout.area.height).toBeLessThanOrEqual(688);
    expect(mediaCentre(layout).y).toBeCloseTo(80 + HINT_BAND_PX + (688 - HINT_BAND_PX) / 2, 0);
  });

  it('scales everything down when the canvas is too small, and stimulus px stay those of the stimulus', () => {
    const layout = bubbleLayout({ x: 0, y: 0, width: 1000, height: 800 }, { width: 1600, height: 900 });
    expect(layout.scale).toBeCloseTo(0.5, 10);
    expect(layout.area).toEqual({ x: 0, y: 118, width: 1000, height: 563 });
    expect(layout.media).toEqual({ x: 100, y: 175, width: 800, height: 450 });
    expect(toStimulus(900, 625, layout, { width: 1600, height: 900 })).toEqual({ x: 1600, y: 900 });
  });

  it('w/h drawn sizes map back onto the stimulus declared size', () => {
    // The study says 960x540; the query draws it at 480x270.
    const layout = bubbleLayout(fullWindow, { width: 480, height: 270 });
    expect(toStimulus(layout.media.x + 240, layout.media.y + 135, layout, { width: 960, height: 540 })).toEqual({ x: 480, y: 270 });
  });

  it('a smaller media of a pair is centred in the area made for the larger one', () => {
    const layout = bubbleLayout(fullWindow, { width: 400, height: 200 }, { width: 200, height: 100 });
    expect(layout.area).toEqual({ x: 390, y: 235, width: 500, height: 250 });
    expect(layout.media).toEqual({ x: 540, y: 310, width: 200, height: 100 });
  });

  describe('in device pixels (scaling integer / native: docs/pixels.md)', () => {
    const canvas = { x: 0, y: 0, width: 1024, height: 640 };
    const noise = { width: 320, height: 180 };

    it('at 125 %, integer draws each media pixel as one device pixel at a whole device pixel, centred', () => {
      const layout = bubbleLayout(canvas, noise, noise, HINT_BAND_PX, { scaling: 'integer', ratio: 1.25 });
      expect(layout.pixels).toEqual({ scaling: 'integer', scale: 1, filter: 'nearest', device: { x: 480, y: 310, width: 320, height: 180 }, fits: true });
      expect(layout.media).toEqual({ x: 384, y: 248, width: 256, height: 144 });
      // CSS px per media pixel: the blur and the window radius (media px) are drawn at this scale.
      expect(layout.scale).toBe(0.8);
      expect(mediaCentre(layout)).toEqual({ x: 512, y: 320 });
      expect(toStimulus(384 + 0.8 * 10, 248 + 0.8 * 20, layout, noise)).toEqual({ x: 10, y: 20 });
    });

    it('on a Retina display integer replicates 2×2 (the CSS size of ratio 1), native draws it at half that', () => {
      const integer = bubbleLayout(canvas, noise, noise, HINT_BAND_PX, { scaling: 'integer', ratio: 2 });
      expect(integer.pixels).toMatchObject({ scale: 2, filter: 'nearest', device: { x: 704, y: 460, width: 640, height: 360 } });
      expect(integer.media).toEqual({ x: 352, y: 230, width: 320, height: 180 });
      const native = bubbleLayout(canvas, noise, noise, HINT_BAND_PX, { scaling: 'native', ratio: 2 });
      expect(native.pixels).toMatchObject({ scale: 1, device: { width: 320, height: 180 } });
      expect(native.scale).toBe(0.5);
    });

    it('never shrunk: a canvas too small keeps the media whole, says it does not fit and what it needs', () => {
      const small = { x: 0, y: 80, width: 300, height: 200 };
      const layout = bubbleLayout(small, noise, noise, HINT_BAND_PX, { scaling: 'integer', ratio: 1 });
      expect(layout.pixels).toMatchObject({ fits: false, device: { width: 320, height: 180 } });
      expect(layout.needs).toEqual({ width: 320, height: 180 + HINT_BAND_PX });
      // It fits exactly when the canvas has the media's pixels below the hint band.
      const exact = bubbleLayout({ ...small, width: 320, height: 220 }, noise, noise, HINT_BAND_PX, { scaling: 'integer', ratio: 1 });
      expect(exact.pixels).toMatchObject({ fits: true, device: { x: 0, y: 40 } });
    });

    it('a w/h other than the file\'s size is resampled, and the record says so (linear, its scale)', () => {
      const layout = bubbleLayout(canvas, { width: 640, height: 360 }, { width: 640, height: 360 }, HINT_BAND_PX, { scaling: 'integer', ratio: 1, natural: noise });
      expect(layout.pixels).toMatchObject({ scale: 2, filter: 'linear', device: { width: 640, height: 360 } });
    });

    it('fit keeps the old geometry (shrunk in CSS px, no pixels record)', () => {
      const layout = bubbleLayout(canvas, noise, noise, HINT_BAND_PX, { scaling: 'fit', ratio: 1.25 });
      expect(layout.pixels).toBeUndefined();
      expect(layout).toEqual(bubbleLayout(canvas, noise, noise, HINT_BAND_PX));
    });
  });
});
