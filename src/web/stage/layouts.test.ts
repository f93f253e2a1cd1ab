import { describe, expect, it } from 'vitest';
import {
  contentArea,
  fitRect,
  layoutGrid,
  layoutOneAfterAnother,
  layoutQuadruplet,
  layoutSideBySide,
  layoutSingle,
  layoutTripletRow,
  layoutFits,
  layoutNeeds,
  pixelsPerMediaPixel,
} from './layouts';
import type { MediaBox } from './layouts';
import type { Rect } from './types';

const canvas = { width: 1920, height: 1080 };
const hd = (media: string): MediaBox => ({ media, size: { width: 1920, height: 1080 } });
const small = (media: string): MediaBox => ({ media, size: { width: 320, height: 180 } });

const inside = (rect: Rect, area: Rect) =>
  rect.x >= area.x && rect.y >= area.y && rect.x + rect.width <= area.x + area.width && rect.y + rect.height <= area.y + area.height;
const overlap = (a: Rect, b: Rect) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const isWhole = (r: Rect) => [r.x, r.y, r.width, r.height].every(Number.isInteger);

describe('contentArea', () => {
  it('removes the margins and the question band', () => {
    expect(contentArea(canvas, { margin: 10, topBand: 100 })).toEqual({ x: 10, y: 110, width: 1900, height: 960 });
    expect(contentArea({ width: 10, height: 10 }, { margin: 20 })).toEqual({ x: 20, y: 20, width: 0, height: 0 });
  });
});

describe('fitRect', () => {
  it('keeps the aspect ratio and centres in the box', () => {
    expect(fitRect({ width: 1920, height: 1080 }, { x: 0, y: 0, width: 960, height: 960 })).toEqual({ x: 0, y: 210, width: 960, height: 540 });
    expect(fitRect({ width: 1000, height: 2000 }, { x: 100, y: 0, width: 1000, height: 1000 })).toEqual({ x: 350, y: 0, width: 500, height: 1000 });
  });

  it('does not upscale unless asked', () => {
    expect(fitRect({ width: 320, height: 180 }, { x: 0, y: 0, width: 1000, height: 1000 })).toEqual({ x: 340, y: 410, width: 320, height: 180 });
    expect(fitRect({ width: 320, height: 180 }, { x: 0, y: 0, width: 640, height: 640 }, true)).toEqual({ x: 0, y: 140, width: 640, height: 360 });
  });

  it('refuses an unknown media size', () => {
    expect(() => fitRect({ width: 0, height: 180 }, { x: 0, y: 0, width: 10, height: 10 })).toThrow(RangeError);
  });
});

describe('pair layouts', () => {
  it('side by side: A left of B, same size, inside the area, no overlap, whole pixels, gap kept', () => {
    const options = { margin: 20, gap: 30, topBand: 120 };
    const [a, b] = layoutSideBySide(canvas, [hd('A'), hd('B')], options);
    const area = contentArea(canvas, options);
    expect(a.media).toBe('A');
    expect(b.media).toBe('B');
    expect(inside(a.rect, area) && inside(b.rect, area)).toBe(true);
    expect(overlap(a.rect, b.rect)).toBe(false);
    expect(a.rect.x + a.rect.width).toBeLessThanOrEqual(b.rect.x - 30);
    expect([a.rect.width, a.rect.height]).toEqual([b.rect.width, b.rect.height]);
    expect(isWhole(a.rect) && isWhole(b.rect)).toBe(true);
    // Width-limited: (1880 - 30) / 2 = 925 px wide, 16:9.
    expect(a.rect.width).toBe(925);
    expect(a.rect.height).toBe(520);
    expect(a.rect.y).toBe(b.rect.y);
  });

  it('side by side keeps small media at natural size, centred as a group', () => {
    const [a, b] = layoutSideBySide(canvas, [small('A'), small('B')], { margin: 0, gap: 20 });
    expect(a.rect).toEqual({ x: 630, y: 450, width: 320, height: 180 });
    expect(b.rect).toEqual({ x: 970, y: 450, width: 320, height: 180 });
  });

  it('side by side draws two media of different sizes at one common scale', () => {
    const [a, b] = layoutSideBySide(canvas, [hd('A'), { media: 'B', size: { width: 960, height: 540 } }], { margin: 0, gap: 0 });
    expect(a.rect.width / 1920).toBeCloseTo(b.rect.width / 960, 2);
  });

  it('one after another: each centred on the whole area, at the same scale', () => {
    const [a, b] = layoutOneAfterAnother(canvas, [hd('A'), hd('B')], { margin: 40 });
    expect(a.rect).toEqual(b.rect);
    // Height-limited: 1000 px high, 16:9.
    expect(a.rect).toEqual({ x: 71, y: 40, width: 1778, height: 1000 });
    expect(a.media).toBe('A');
    expect(b.media).toBe('B');
  });

  it('one after another leaves small media at natural size in the centre of the free area below the band', () => {
    const [a] = layoutOneAfterAnother({ width: 800, height: 600 }, [small('A'), small('B')], { margin: 0, topBand: 100 });
    expect(a.rect).toEqual({ x: 240, y: 260, width: 320, height: 180 });
  });
});

describe('keepClear: a band the media leave free for the page (the dialog beside 3D objects)', () => {
  const square = (media: string): MediaBox => ({ media, size: { width: 1024, height: 1024 } });
  const stage = { width: 1366, height: 688 };

  it('a band the centred media already leave free changes nothing', () => {
    expect(layoutSingle(stage, square('A'), { keepClear: { right: 352 } })).toEqual(layoutSingle(stage, square('A')));
  });

  it('centred, pushed left just out of the band when it reaches into it, at the same size while the height limits it', () => {
    const canvas = { width: 1280, height: 640 };
    expect(layoutSingle(canvas, square('A')).rect).toEqual({ x: 336, y: 16, width: 608, height: 608 });
    expect(layoutSingle(canvas, square('A'), { keepClear: { right: 352 } }).rect).toEqual({ x: 320, y: 16, width: 608, height: 608 });
  });

  it('shrinks the media to what the band leaves: side by side on the right, below, one after another', () => {
    const [a, b] = layoutSideBySide(stage, [square('A'), square('B')], { keepClear: { right: 352 } });
    expect(b.rect.x + b.rect.width).toBeLessThanOrEqual(stage.width - 352);
    expect([a.rect.width, b.rect.width, a.rect.x]).toEqual([491, 491, 16]);
    const [c, d] = layoutSideBySide(stage, [square('A'), square('B')], { keepClear: { bottom: 182 } });
    expect([c.rect.y + c.rect.height, d.rect.y + d.rect.height]).toEqual([506, 506]);
    // Still centred across: the band is only at the bottom.
    expect(c.rect.x - 16).toBe(stage.width - 16 - (d.rect.x + d.rect.width));
    const [e, f] = layoutOneAfterAnother(stage, [square('A'), square('B')], { keepClear: { bottom: 400 } });
    expect([e.rect, f.rect]).toEqual([
      { x: 547, y: 16, width: 272, height: 272 },
      { x: 547, y: 16, width: 272, height: 272 },
    ]);
  });
});

describe('single, quadruplet, triplet', () => {
  it('single: centred', () => {
    expect(layoutSingle({ width: 800, height: 600 }, small('A'), { margin: 0 }).rect).toEqual({ x: 240, y: 210, width: 320, height: 180 });
  });

  it('quadruplet: top pair A B over bottom pair C D, equal sizes, no overlap', () => {
    const options = { margin: 16, gap: 16, topBand: 80 };
    const items = layoutQuadruplet(canvas, [hd('A'), hd('B'), hd('C'), hd('D')], options);
    const [a, b, c, d] = items.map((i) => i.rect);
    expect(items.map((i) => i.media)).toEqual(['A', 'B', 'C', 'D']);
    expect(a.y).toBe(b.y);
    expect(c.y).toBe(d.y);
    expect(c.y).toBeGreaterThanOrEqual(a.y + a.height + 16);
    expect(a.x).toBe(c.x);
    expect(b.x).toBe(d.x);
    expect(b.x).toBeGreaterThanOrEqual(a.x + a.width + 16);
    const area = contentArea(canvas, options);
    items.forEach((i) => expect(inside(i.rect, area)).toBe(true));
    expect(new Set(items.map((i) => `${i.rect.width}x${i.rect.height}`)).size).toBe(1);
    // Height-limited: (1080 - 80 - 32 - 16) / 2 = 476 px high.
    expect(a.height).toBe(476);
  });

  it('triplet: three in a row, left to right, same y', () => {
    const items = layoutTripletRow(canvas, [hd('A'), hd('B'), hd('C')], { margin: 0, gap: 10 });
    const [a, b, c] = items.map((i) => i.rect);
    expect(a.x + a.width + 10).toBeLessThanOrEqual(b.x);
    expect(b.x + b.width + 10).toBeLessThanOrEqual(c.x);
    expect(a.y).toBe(b.y);
    expect(b.y).toBe(c.y);
    expect(c.x + c.width).toBeLessThanOrEqual(1920);
    expect(a.width).toBe(633);
  });

  it('grid refuses a count that does not fill it', () => {
    expect(() => layoutGrid(canvas, [hd('A')], 1, 2)).toThrow(RangeError);
  });

  it('shrinks to nothing, never below zero, on a canvas smaller than the margins', () => {
    const [a] = layoutSideBySide({ width: 20, height: 20 }, [small('A'), small('B')], { margin: 16, gap: 16 });
    expect(a.rect.width).toBe(0);
    expect(a.rect.height).toBe(0);
  });
});

describe('exact layouts in device pixels (docs/pixels.md)', () => {
  const noise = (media: string): MediaBox => ({ media, size: { width: 160, height: 120 } });
  const atRatio = (pixelRatio: number, scaling: 'integer' | 'native', width = 640, height = 360) => ({ width, height, pixelRatio, scaling });

  it('k is the whole part of the ratio for integer, 1 for native', () => {
    expect([1, 1.25, 1.5, 1.75, 2, 2.5, 3, 1.9999999].map((r) => pixelsPerMediaPixel('integer', r))).toEqual([1, 1, 1, 1, 2, 2, 3, 2]);
    expect(pixelsPerMediaPixel('native', 2)).toBe(1);
  });

  for (const ratio of [1, 1.25, 1.5, 1.75, 2]) {
    it(`at ratio ${ratio} every device coordinate is whole, the media is k×k per pixel and the CSS rect multiplies back`, () => {
      for (const scaling of ['integer', 'native'] as const) {
        const k = pixelsPerMediaPixel(scaling, ratio);
        const [a, b] = layoutSideBySide(atRatio(ratio, scaling), [noise('a'), noise('b')]);
        for (const item of [a, b]) {
          expect(isWhole(item.pixels!.device)).toBe(true);
          expect(item.pixels).toMatchObject({ scaling, scale: k, filter: 'nearest', fits: true });
          expect([item.pixels!.device.width, item.pixels!.device.height]).toEqual([160 * k, 120 * k]);
          expect(item.rect.x * ratio).toBeCloseTo(item.pixels!.device.x, 9);
          expect(item.rect.width * ratio).toBeCloseTo(item.pixels!.device.width, 9);
        }
        // One scale for both, the default 16 CSS px gap in whole device pixels between them.
        expect(b.pixels!.device.x - (a.pixels!.device.x + a.pixels!.device.width)).toBe(Math.round(16 * ratio));
      }
    });
  }

  it('never shrinks: a 960×540 media on a 800×500 canvas at ratio 1 is not fitted, and says it does not fit', () => {
    const item = layoutSingle(atRatio(1, 'integer', 800, 500), { media: 'big', size: { width: 960, height: 540 } });
    expect(item.pixels).toMatchObject({ scale: 1, fits: false, device: { width: 960, height: 540 } });
    expect(layoutFits([item])).toBe(false);
    expect(layoutNeeds([item])).toEqual({ width: 960, height: 540 });
  });

  it('a 960×540 media at ratio 2 (integer) is drawn 1920×1080 device pixels, its CSS size unchanged', () => {
    const item = layoutSingle(atRatio(2, 'integer', 1280, 720), { media: 'clip', size: { width: 960, height: 540 } });
    expect(item.rect).toMatchObject({ width: 960, height: 540 });
    expect(item.pixels).toMatchObject({ scale: 2, fits: true, device: { width: 1920, height: 1080 } });
  });

  it('one after another: both at the same k, each centred', () => {
    const [a, b] = layoutOneAfterAnother(atRatio(1.5, 'integer'), [noise('a'), { media: 'b', size: { width: 80, height: 60 } }]);
    expect([a.pixels!.scale, b.pixels!.scale]).toEqual([1, 1]);
    expect(b.pixels!.device).toEqual({ x: Math.floor((960 - 80) / 2), y: Math.floor((540 - 60) / 2), width: 80, height: 60 });
  });

  it('fits the canvas without its margins when the margins leave no room', () => {
    const item = layoutSingle(atRatio(1, 'native', 170, 130), noise('n'));
    expect(item.pixels).toMatchObject({ fits: true, device: { x: 5, y: 5, width: 160, height: 120 } });
  });
});
