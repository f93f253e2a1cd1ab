/**
 * Draws the protocols' instruction images into public/instructions/ (committed; rerun after changing this file or
 * scripts/instructions/pictograms.ts). Each shows what the participant will do, without words (one image for
 * every language): what is shown, then what to click.
 * Usage: npx tsx scripts/make-instruction-images.ts [--png previewDir]   (PNG previews via sharp, to look at them)
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { arrow, bracketRight, miniPictures, OBJECTS, picture, PICTURES, pointer, svg, voteButton, type Look, type Subject } from './instructions/pictograms.js';

const INK = '#37474f';

/** A column of level buttons, best on top (+) to worst (−); `chosen` is pressed, with the pointer on it. */
function levelColumn(x: number, top: number, w: number, fills: string[], chosen: number, gapAfter: number[] = []): string {
  const h = 32;
  let y = top;
  let out = '';
  fills.forEach((fill, i) => {
    out += voteButton(x, y, w, h, { fill, chosen: i === chosen });
    if (i === chosen) out += pointer(x + w * 0.62, y + h * 0.55);
    y += h + 12 + (gapAfter.includes(i) ? 26 : 0);
    if (gapAfter.includes(i)) out += `<line x1="${x - 10}" y1="${y - 25}" x2="${x + w + 10}" y2="${y - 25}" stroke="${INK}" stroke-width="2" stroke-dasharray="6 5"/>`;
  });
  const bottom = y - 12;
  out +=
    `<text x="${x - 22}" y="${top + 24}" font-family="Liberation Sans, Arial, sans-serif" font-size="26" font-weight="bold" fill="${INK}" text-anchor="middle">+</text>` +
    `<text x="${x - 22}" y="${bottom - 6}" font-family="Liberation Sans, Arial, sans-serif" font-size="30" font-weight="bold" fill="${INK}" text-anchor="middle">−</text>`;
  return out;
}

const BLUE = '#1f6fd0';
const five = Array<string>(5).fill(BLUE);

function acr(d: Subject = PICTURES): string {
  return svg(d.picture(36, 112, 240, 135, 'blur1') + arrow(296, 372, 180) + levelColumn(420, 72, 180, five, 1));
}

function dsis(d: Subject = PICTURES): string {
  return svg(
    d.picture(20, 122, 150, 84, 'clear', true) +
      arrow(180, 226, 164) +
      d.picture(236, 122, 150, 84, 'blocks') +
      arrow(396, 442, 164) +
      levelColumn(478, 72, 140, five, 2),
  );
}

function accann(d: Subject = PICTURES): string {
  // Two levels: acceptable (two labels) above the dashed line, not acceptable below.
  return svg(d.picture(36, 112, 240, 135, 'noise') + arrow(296, 372, 180) + levelColumn(420, 88, 180, [BLUE, BLUE, '#546e7a'], 1, [1]));
}

function mlds(): string {
  const w = 150;
  const h = 84;
  const row = (y: number, a: Look, b: Look) => picture(40, y, w, h, a) + picture(40 + w + 14, y, w, h, b);
  const top = 58;
  const bottom = 218;
  const buttonX = 420;
  return svg(
    row(top, 'clear', 'blur1') +
      row(bottom, 'blur1', 'blur3') +
      bracketRight(372, top, top + h) +
      bracketRight(372, bottom, bottom + h) +
      voteButton(buttonX, top + h / 2 - 18, 170, 36, { icon: miniPictures(buttonX + 58, top + h / 2 - 7, 2) }) +
      voteButton(buttonX, bottom + h / 2 - 18, 170, 36, { chosen: true, icon: miniPictures(buttonX + 58, bottom + h / 2 - 7, 2) }) +
      pointer(buttonX + 120, bottom + h / 2 + 2),
  );
}

/** A two-headed arrow between two pictures: "how close are these two?" */
function compare(x1: number, x2: number, y: number): string {
  return (
    `<line x1="${x1 + 10}" y1="${y}" x2="${x2 - 10}" y2="${y}" stroke="${INK}" stroke-width="3"/>` +
    `<polygon points="${x1},${y} ${x1 + 12},${y - 7} ${x1 + 12},${y + 7}" fill="${INK}"/>` +
    `<polygon points="${x2},${y} ${x2 - 12},${y - 7} ${x2 - 12},${y + 7}" fill="${INK}"/>`
  );
}

function triplet(): string {
  const w = 170;
  const h = 96;
  const xs = [30, 235, 440];
  const y = 70;
  return svg(
    picture(xs[0]!, y, w, h, 'clear') +
      picture(xs[1]!, y, w, h, 'blur1', true) +
      picture(xs[2]!, y, w, h, 'blur3') +
      compare(xs[0]! + w / 2, xs[1]! + w / 2 - 6, y + h + 26) +
      compare(xs[1]! + w / 2 + 6, xs[2]! + w / 2, y + h + 26) +
      voteButton(xs[0]! + 25, 250, 120, 38, { chosen: true, icon: miniPictures(xs[0]! + 74, 262, 1) }) +
      voteButton(xs[2]! + 25, 250, 120, 38, { icon: miniPictures(xs[2]! + 74, 262, 1) }) +
      pointer(xs[0]! + 110, 272),
  );
}

function mldsPair(d: Subject = PICTURES): string {
  const w = 230;
  const h = 130;
  return svg(
    d.picture(60, 56, w, h, 'clear') +
      d.picture(350, 56, w, h, 'noise') +
      voteButton(115, 240, 120, 40, { icon: d.mini(164, 253, 1) }) +
      voteButton(405, 240, 120, 40, { chosen: true, icon: d.mini(454, 253, 1) }) +
      pointer(495, 262),
  );
}

/** A white check mark centred on (cx, cy): the confirming button (Submit). */
function checkMark(cx: number, cy: number): string {
  return `<polyline points="${cx - 10},${cy} ${cx - 3},${cy + 7} ${cx + 11},${cy - 8}" fill="none" stroke="#fff" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/>`;
}

/** Pair comparison: two pictures, pick one (pressed), then confirm it (Submit / Modify in the page). */
function pair(d: Subject = PICTURES): string {
  const w = 200;
  const h = 112;
  const y = 70;
  const xs = [30, 250];
  const buttonY = 224;
  return svg(
    d.picture(xs[0]!, y, w, h, 'clear') +
      d.picture(xs[1]!, y, w, h, 'blocks') +
      voteButton(xs[0]! + 40, buttonY, 120, 38, { chosen: true, icon: d.mini(xs[0]! + 89, buttonY + 12, 1) }) +
      voteButton(xs[1]! + 40, buttonY, 120, 38, { icon: d.mini(xs[1]! + 89, buttonY + 12, 1) }) +
      arrow(470, 522, buttonY + 19) +
      voteButton(536, buttonY, 88, 38, { fill: '#2e7d32', icon: checkMark(564, buttonY + 19) }) +
      pointer(600, buttonY + 22),
  );
}

export const INSTRUCTION_IMAGES: Record<string, () => string> = {
  pair,
  acr,
  dsis,
  accann,
  mlds,
  triplet,
  'mlds-pair': mldsPair,
  // The protocols that show 3D objects (objectInstructionImage): the same images with objects instead of pictures.
  'pair-3d': () => pair(OBJECTS),
  'acr-3d': () => acr(OBJECTS),
  'dsis-3d': () => dsis(OBJECTS),
  'accann-3d': () => accann(OBJECTS),
  'mlds-pair-3d': () => mldsPair(OBJECTS),
};

async function main(): Promise<void> {
  const outDir = 'public/instructions';
  const pngIndex = process.argv.indexOf('--png');
  const previewDir = pngIndex > 0 ? process.argv[pngIndex + 1] : undefined;
  await mkdir(outDir, { recursive: true });
  if (previewDir) await mkdir(previewDir, { recursive: true });
  for (const [name, draw] of Object.entries(INSTRUCTION_IMAGES)) {
    const text = draw();
    await writeFile(join(outDir, `${name}.svg`), text);
    if (previewDir) await sharp(Buffer.from(text)).png().toFile(join(previewDir, `${name}.png`));
    console.log(`${outDir}/${name}.svg`);
  }
}

await main();
