import { describe, expect, it } from 'vitest';
import { createRandom } from '../random.js';
import type { BubbleScreening } from '../types.js';
import { analyseBubble, gaussianBlur } from './bubble.js';

const base = { observer: 'o1', stimulus: 'img', media: 'A' as const, width: 100, height: 60, radius: 8 };

describe('bubble dwell heatmaps', () => {
  it('weighs each sample by the time to the next, the last until the end of the recording', async () => {
    const screening: BubbleScreening = {
      ...base,
      durationMs: 400,
      samples: [
        { x: 50, y: 50, t: 300 }, // out of order on purpose: samples are sorted by time
        { x: 10, y: 10, t: 0 },
        { x: 10, y: 10, t: 100 },
      ],
    };
    const result = await analyseBubble([screening], { excludeFlagged: false, sigma: 0, cell: 4 });
    const m = result.media[0];
    expect(m.totalDwellMs).toBe(400); // 100 + 200 at (10, 10), 100 at (50, 50)
    expect(m.peak).toEqual({ x: 10, y: 10 }); // centre of cell (2, 2)
    expect(m.meanSamples).toBe(3);
  });

  it('without a known length the last sample weighs the median interval; off-image dwell is kept apart', async () => {
    const screening: BubbleScreening = {
      ...base,
      samples: [
        { x: 10, y: 10, t: 0 },
        { x: 20, y: 10, t: 100 },
        { x: -5, y: 10, t: 300 },
        { x: 30, y: 10, t: 340 },
      ],
    };
    const m = (await analyseBubble([screening], { excludeFlagged: false, sigma: null, cell: 4 })).media[0];
    // intervals 100, 200, 40 → median 100 for the last sample; the off-image sample's 40 ms are off-image dwell.
    expect(m.totalDwellMs).toBe(100 + 200 + 100);
    expect(m.offImageDwellMs).toBe(40);
    expect(m.sigmaPx).toBe(8);
    expect(m.coverage).toBeGreaterThan(0);
    expect(m.coverage).toBeLessThan(1);
  });

  it('finds the peak of samples scattered around a known point, per media, with emotion accuracy', async () => {
    const random = createRandom(4);
    const screenings: BubbleScreening[] = [];
    for (let o = 0; o < 20; o++) {
      const samples = Array.from({ length: 200 }, (_, k) => ({ x: 300 + 25 * random.normal(), y: 120 + 25 * random.normal(), t: k * 16.7 }));
      screenings.push({ ...base, observer: `o${o}`, width: 640, height: 360, radius: 30, samples, rating: o < 15 ? 4 : 2, expectedEmotion: 3 });
      screenings.push({ ...base, observer: `o${o}`, media: 'B', width: 640, height: 360, radius: 30, samples: samples.map((s) => ({ ...s, x: 600 - s.x })) });
    }
    const result = await analyseBubble(screenings, { excludeFlagged: false, sigma: null, cell: 4 });
    const [a, b] = result.media;
    expect([a.media, b.media]).toEqual(['A', 'B']);
    expect(Math.hypot((a.peak?.x ?? 0) - 300, (a.peak?.y ?? 0) - 120)).toBeLessThan(8);
    expect(Math.hypot((b.peak?.x ?? 0) - 300, (b.peak?.y ?? 0) - 120)).toBeLessThan(8);
    expect(a.observers).toBe(20);
    expect(result.emotion).toMatchObject({ answered: 20, correct: 15, accuracy: 0.75 });
    expect(a.heatmap.columns).toBeLessThanOrEqual(64);
    expect(Math.max(...a.heatmap.values)).toBeLessThanOrEqual(1);
  });

  it('excludes flagged screenings when asked', async () => {
    const screenings: BubbleScreening[] = [
      { ...base, samples: [{ x: 1, y: 1, t: 0 }], durationMs: 10 },
      { ...base, observer: 'o2', flagged: true, samples: [{ x: 1, y: 1, t: 0 }], durationMs: 10 },
    ];
    const result = await analyseBubble(screenings, { excludeFlagged: true, sigma: 0, cell: 4 });
    expect(result.counts).toMatchObject({ read: 2, flagged: 1, excluded: 1 });
    expect(result.media[0].screenings).toBe(1);
  });

  it('blurs with a normalised Gaussian (mass kept away from the edges)', () => {
    const grid = new Float64Array(41 * 41);
    grid[20 * 41 + 20] = 1;
    const blurred = gaussianBlur(grid, 41, 41, 2.5);
    expect(blurred.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(blurred[20 * 41 + 20]).toBeCloseTo(1 / (2 * Math.PI * 2.5 * 2.5), 2);
  });
});
