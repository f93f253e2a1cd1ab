import { rename, writeFile } from 'node:fs/promises';
import sharp, { type Sharp } from 'sharp';
import { TRAP_ANSWERS, type ImageRecipe, type ImageStep, type SceneName, type Subject } from './media-name.js';
import { citySvg } from './scenes/city.js';
import { faceSvg } from './scenes/faces.js';
import { landscapeSvg } from './scenes/landscape.js';
import { stillLifeSvg } from './scenes/still-life.js';
import { SCENE_HEIGHT, seededRandom, svgDocument } from './scenes/svg.js';

/** Uncompressed RGB pixels: every impairment step works on these, so steps compose in any order. */
export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
}

const SCENE_DRAWINGS: Record<SceneName, (viewWidth: number) => string> = {
  landscape: landscapeSvg,
  city: citySvg,
  'still-life': stillLifeSvg,
};

const FACE_VIEWBOX = 600;

/** The SVG document of a subject at a pixel size. Scenes are drawn to fill any aspect ratio; faces are cropped. */
export function subjectSvg(subject: Subject, width: number, height: number): string {
  if (subject.type === 'trap') return trapSvg(TRAP_ANSWERS[subject.answer], width, height);
  if (subject.type === 'face') return svgDocument(FACE_VIEWBOX, FACE_VIEWBOX, width, height, faceSvg(subject.person, subject.emotion));
  const viewWidth = (SCENE_HEIGHT * width) / height;
  return svgDocument(viewWidth, SCENE_HEIGHT, width, height, SCENE_DRAWINGS[subject.scene](viewWidth));
}

/** A plain card whose text tells the participant what to answer (a trapping stimulus, P.910 crowd toolkit style). */
function trapSvg(label: string, width: number, height: number): string {
  const size = Math.round(height / 9);
  const text = (y: number, content: string) =>
    `<text x="${width / 2}" y="${y}" font-family="DejaVu Sans, sans-serif" font-size="${size}" fill="#f2f2f2" text-anchor="middle">${content}</text>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#4a5663"/>` +
    `${text(height / 2 - size * 0.4, 'Attention check:')}${text(height / 2 + size * 0.9, `please select &#8220;${label}&#8221;`)}</svg>`
  );
}

export async function rasterize(subject: Subject, width: number, height: number): Promise<RawImage> {
  const { data, info } = await sharp(Buffer.from(subjectSvg(subject, width, height)))
    .flatten({ background: '#000000' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

function toSharp(image: RawImage): Sharp {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } });
}

async function fromSharp(pipeline: Sharp): Promise<RawImage> {
  const { data, info } = await pipeline.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Gaussian noise from a seeded PRNG (Box-Muller) so the same recipe always gives the same pixels. */
function addNoise(image: RawImage, sigma: number): RawImage {
  const random = seededRandom(Math.round(sigma * 1000) + image.width * 7 + image.height);
  const out = Buffer.alloc(image.data.length);
  for (let i = 0; i < image.data.length; i += 2) {
    const radius = Math.sqrt(-2 * Math.log(1 - random())) * sigma;
    const angle = 2 * Math.PI * random();
    out[i] = clampByte(image.data[i]! + radius * Math.cos(angle));
    if (i + 1 < image.data.length) out[i + 1] = clampByte(image.data[i + 1]! + radius * Math.sin(angle));
  }
  return { ...image, data: out };
}

function clampByte(value: number): number {
  return value < 0 ? 0 : value > 255 ? 255 : Math.round(value);
}

export async function applyStep(image: RawImage, step: ImageStep): Promise<RawImage> {
  switch (step.op) {
    case 'jpeg':
      return fromSharp(sharp(await toSharp(image).jpeg({ quality: step.quality }).toBuffer()));
    case 'blur':
      return fromSharp(toSharp(image).blur(step.sigma));
    case 'noise':
      return addNoise(image, step.sigma);
    case 'pixelate': {
      const small = await toSharp(image)
        .resize(Math.max(1, Math.round(image.width / step.block)), Math.max(1, Math.round(image.height / step.block)), { kernel: 'linear', fit: 'fill' })
        .raw()
        .toBuffer({ resolveWithObject: true });
      const smallImage = { data: small.data, width: small.info.width, height: small.info.height };
      return fromSharp(toSharp(smallImage).resize(image.width, image.height, { kernel: 'nearest', fit: 'fill' }));
    }
  }
}

/**
 * Renders the recipe and writes it to `outPath` (via a temporary file and a rename, so an interrupted run never
 * leaves a truncated file that a later run would take as done). `base` is the rasterized subject, shared by all
 * variants of one subject and size. A final JPEG step becomes the file's own encoding instead of a second round trip.
 */
export async function writeImage(recipe: ImageRecipe, base: RawImage, outPath: string): Promise<void> {
  const steps = [...recipe.steps];
  const last = steps.at(-1);
  const finalQuality = recipe.format === 'jpg' && last?.op === 'jpeg' ? (steps.pop(), last.quality) : 92;
  let image = base;
  for (const step of steps) image = await applyStep(image, step);
  const pipeline = toSharp(image);
  const bytes = recipe.format === 'jpg' ? await pipeline.jpeg({ quality: finalQuality }).toBuffer() : await pipeline.png({ compressionLevel: 9 }).toBuffer();
  const temporary = `${outPath}.${process.pid}.tmp`;
  await writeFile(temporary, bytes);
  await rename(temporary, outPath);
}
