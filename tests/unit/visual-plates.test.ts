/**
 * The committed colour plates (public/visual/plate-N.png, drawn by scripts/make-plates.ts) must show their
 * number to normal colour vision and hide it from brightness alone.
 */
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { digitMask, makePlate, PLATE_SIZE } from '../../scripts/make-plates.js';
import { layoutPlate, relativeLuminance } from '../../scripts/plates/dotPlate.js';
import { ACUITY_CHART_FILE, COLOR_PLATE_NUMBERS, colorPlateFile } from '../../src/web/screens/visual/visualChecks.js';

/** Pixels of a committed plate that are clearly reddish (the figure family) and clearly greenish (the ground). */
async function readPlate(index: number) {
  const { data, info } = await sharp(`public/${colorPlateFile(index)}`).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, info, redAt: (x: number, y: number) => data[(y * info.width + x) * 4]! > data[(y * info.width + x) * 4 + 1]! + 25 };
}

/** Overlap (intersection over union) of the plate's red pixels with the mask of a candidate number. */
async function overlapWith(candidate: number, plate: Awaited<ReturnType<typeof readPlate>>) {
  const onFigure = await digitMask(candidate, plate.info.width);
  let both = 0, either = 0;
  for (let y = 0; y < plate.info.height; y += 2) {
    for (let x = 0; x < plate.info.width; x += 2) {
      const red = plate.redAt(x, y);
      const mask = onFigure(x, y);
      if (red && mask) both++;
      if (red || mask) either++;
    }
  }
  return both / either;
}

describe('colour plates', () => {
  it.each(COLOR_PLATE_NUMBERS.map((n, i) => [i, n]))('plate %i shows %i, not another number', async (index, value) => {
    const plate = await readPlate(index);
    expect(plate.info.width).toBe(PLATE_SIZE);
    const own = await overlapWith(value, plate);
    expect(own).toBeGreaterThan(0.5);
    // Look-alikes (3 inside 8, 28 next to 26, 16 next to 15) overlap a lot; the drawn number must still fit best.
    for (const other of [...COLOR_PLATE_NUMBERS, 3, 16, 28, 29, 74, 57].filter((n) => n !== value)) {
      expect(await overlapWith(other, plate)).toBeLessThan(own);
    }
  });

  it('figure and ground dots share the same brightness, so only hue reveals the number', async () => {
    const onFigure = await digitMask(45);
    const dots = layoutPlate({ size: PLATE_SIZE, seed: 7, onFigure });
    const stats = (values: number[]) => {
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      return { mean, sd: Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length) };
    };
    const figure = stats(dots.filter((d) => d.figure).map((d) => relativeLuminance(d.fill)));
    const ground = stats(dots.filter((d) => !d.figure).map((d) => relativeLuminance(d.fill)));
    expect(dots.filter((d) => d.figure).length).toBeGreaterThan(150);
    expect(Math.abs(figure.mean - ground.mean)).toBeLessThan(0.25 * ground.sd);
    expect(Math.abs(figure.sd - ground.sd)).toBeLessThan(0.3 * ground.sd);
  });

  it('dots do not overlap and stay inside the disc', async () => {
    const dots = layoutPlate({ size: PLATE_SIZE, seed: 3, onFigure: await digitMask(26) });
    expect(dots.length).toBeGreaterThan(1000);
    for (const d of dots) expect(Math.hypot(d.x - PLATE_SIZE / 2, d.y - PLATE_SIZE / 2) + d.r).toBeLessThanOrEqual(PLATE_SIZE / 2);
    const sorted = [...dots].sort((a, b) => a.x - b.x);
    for (let i = 0; i < sorted.length; i++) {
      for (let j = i + 1; j < sorted.length && sorted[j]!.x - sorted[i]!.x < 25; j++) {
        const [a, b] = [sorted[i]!, sorted[j]!];
        expect(Math.hypot(a.x - b.x, a.y - b.y)).toBeGreaterThanOrEqual(a.r + b.r);
      }
    }
  });

  it('the same seed draws the same plate', async () => {
    expect((await makePlate(15, 1001)).equals(await makePlate(15, 1001))).toBe(true);
    expect((await makePlate(15, 1001)).equals(await makePlate(15, 1002))).toBe(false);
  });
});

describe('acuity chart', () => {
  it('is committed as an image with dark letters on white', async () => {
    const { data, info } = await sharp(`public/${ACUITY_CHART_FILE}`).greyscale().raw().toBuffer({ resolveWithObject: true });
    expect(info.width).toBeGreaterThan(400);
    const dark = data.filter((v) => v < 100).length / data.length;
    expect(dark).toBeGreaterThan(0.01);
    expect(dark).toBeLessThan(0.2);
  });
});
