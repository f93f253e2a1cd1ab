/**
 * Draws the visual-test images into public/visual/ (committed; rerun after changing this file):
 *   acuity-chart.png  Monoyer-style letter chart whose rows, read in order, spell ACUITY_EXPECTED
 *   plate-N.png       pseudo-isochromatic dot plates hiding COLOR_PLATE_NUMBERS[N-1]
 * Letters and digits are drawn with Liberation Sans (Debian fonts-liberation) through sharp's SVG renderer.
 * Images are PNG rather than SVG so the letters cannot be selected, searched or read from the page source.
 * Usage: npx tsx scripts/make-plates.ts [outDir]
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import {
  ACUITY_CHART_FILE,
  ACUITY_ROWS,
  COLOR_PLATE_NUMBERS,
  colorPlateFile,
} from '../src/web/screens/visual/visualChecks.js';
import { layoutPlate, plateSvg } from './plates/dotPlate.js';

const FONT = 'Liberation Sans';
/** Plates are drawn at twice their CSS display size (300 px) to stay sharp on high-density screens. */
export const PLATE_SIZE = 600;

/** Greyscale mask of the number, centred on its ink (font metrics alone leave it off-centre). */
export async function digitMask(value: number, size = PLATE_SIZE): Promise<(x: number, y: number) => boolean> {
  const text = String(value);
  const fontSize = Math.round(size * (text.length === 1 ? 0.66 : 0.56));
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}">` +
    `<rect width="100%" height="100%" fill="black"/>` +
    `<text x="${size / 2}" y="${size * 0.7}" font-family="${FONT}" font-weight="bold" font-size="${fontSize}" ` +
    `text-anchor="middle" fill="white" stroke="white" stroke-width="${Math.round(size * 0.015)}" ` +
    `stroke-linejoin="round">${text}</text></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  let minX = size, maxX = -1, minY = size, maxY = -1;
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      if (data[y * info.width + x]! < 128) continue;
      minX = Math.min(minX, x); maxX = Math.max(maxX, x);
      minY = Math.min(minY, y); maxY = Math.max(maxY, y);
    }
  }
  if (maxX < 0) throw new Error(`font ${FONT} drew nothing for ${text}; install fonts-liberation`);
  const dx = Math.round((minX + maxX) / 2 - size / 2);
  const dy = Math.round((minY + maxY) / 2 - size / 2);
  return (x, y) => {
    const mx = Math.round(x + dx);
    const my = Math.round(y + dy);
    return mx >= 0 && my >= 0 && mx < info.width && my < info.height && data[my * info.width + mx]! >= 128;
  };
}

export async function makePlate(value: number, seed: number): Promise<Buffer> {
  const onFigure = await digitMask(value);
  const dots = layoutPlate({ size: PLATE_SIZE, seed, onFigure });
  // A 256-colour palette halves each plate (about 140 KB); dot colours move only slightly.
  return sharp(Buffer.from(plateSvg(PLATE_SIZE, dots))).png({ compressionLevel: 9, palette: true, dither: 0 }).toBuffer();
}

/** Monoyer-style chart: one row per entry of ACUITY_ROWS, letter size shrinking like 1/acuity (1, 2, 3, 5 tenths). */
export async function makeAcuityChart(): Promise<Buffer> {
  const width = 560;
  const fontSizes = [150, 75, 50, 30];
  let y = 40;
  const letters: string[] = [];
  ACUITY_ROWS.forEach((row, i) => {
    const fontSize = fontSizes[i]!;
    const advance = fontSize * 1.35;
    y += fontSize * 0.72 + (i === 0 ? 0 : fontSize * 0.8);
    const startX = width / 2 - ((row.length - 1) * advance) / 2;
    [...row].forEach((letter, k) => {
      letters.push(
        `<text x="${(startX + k * advance).toFixed(1)}" y="${y.toFixed(1)}" font-family="${FONT}" ` +
          `font-size="${fontSize}" text-anchor="middle" fill="#111">${letter}</text>`,
      );
    });
  });
  const height = Math.round(y + 50);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<rect width="100%" height="100%" fill="white"/>${letters.join('')}</svg>`;
  return sharp(Buffer.from(svg)).png({ compressionLevel: 9 }).toBuffer();
}

async function main(outDir: string): Promise<void> {
  await mkdir(join(outDir, 'visual'), { recursive: true });
  await sharp(await makeAcuityChart()).toFile(join(outDir, ACUITY_CHART_FILE));
  for (const [index, value] of COLOR_PLATE_NUMBERS.entries()) {
    // Seeded per plate so every rerun yields the same committed images.
    await sharp(await makePlate(value, 1000 + index)).toFile(join(outDir, colorPlateFile(index)));
  }
  console.log(`wrote ${ACUITY_CHART_FILE} and ${COLOR_PLATE_NUMBERS.length} plates under ${outDir}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main(process.argv[2] ?? 'public');
}
