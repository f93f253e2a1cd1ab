import { basename, extname } from 'node:path';
import { CLOUD_CONTENTS, MESH_CONTENTS, type CloudContent, type CloudStep, type MeshContent, type MeshStep } from './render-model.js';
import { EMOTIONS, PEOPLE, type Emotion } from './scenes/faces.js';

/**
 * A demo media file name is its own recipe, so a study only has to name a file to get it generated:
 *
 *   {subject}_{W}x{H}[_{step}...].{jpg|png}     image
 *   {scene}_{W}x{H}_crf{N}[_{S}s].mp4            video (camera pan over the scene, S seconds, default 3)
 *
 * subject: landscape | city | still-life | face-{person}-{emotion}   (person: ada, ben, cleo, dan)
 *          | trap-{bad|poor|fair|good|excellent}   (a trapping image whose text asks for that ACR level)
 * steps, applied in order: ref (pristine, no-op) | q{N} (JPEG round trip at quality N) | blur{S} (gaussian
 * sigma S, "p" as decimal point: blur1p5) | noise{S} (gaussian noise, sigma S grey levels) | px{N} (pixelation,
 * N-pixel blocks).
 * Example: images/landscape_640x360_q10.jpg, faces/face-ada-anger_512x512_px16.jpg, videos/city_480x270_crf38.mp4
 *
 * 3D objects (render-model.ts), "p" as decimal point:
 *   {knot|shell}[_{step}...].glb          textured mesh; steps: ref | simp{R} (meshoptimizer simplification keeping
 *                                         ratio R of the vertices) | qpos{B} (positions quantized to B bits, 8-16) |
 *                                         tex{Q} (texture as JPEG quality Q) | mopt (EXT_meshopt_compression)
 *   {dome|spiral}_{N}k[_{step}...].ply    point cloud of N thousand points; steps: ref | dec{K} (keep fraction K) |
 *                                         gn{S} (gaussian geometry noise, sigma S object units; the objects span ~2)
 * Example: models/knot_simp0p25.glb, clouds/dome_20k_gn0p02.ply
 */

export const SCENES = ['landscape', 'city', 'still-life'] as const;
export type SceneName = (typeof SCENES)[number];

/** The answers a trapping image can ask for (docs/quality.md): its text names the level to select. */
export const TRAP_ANSWERS = { bad: 'Bad', poor: 'Poor', fair: 'Fair', good: 'Good', excellent: 'Excellent' } as const;
export type TrapAnswer = keyof typeof TRAP_ANSWERS;

export type Subject = { type: 'scene'; scene: SceneName } | { type: 'face'; person: string; emotion: Emotion } | { type: 'trap'; answer: TrapAnswer };

export type ImageStep =
  | { op: 'jpeg'; quality: number }
  | { op: 'blur'; sigma: number }
  | { op: 'noise'; sigma: number }
  | { op: 'pixelate'; block: number };

export interface ImageRecipe {
  kind: 'image';
  subject: Subject;
  width: number;
  height: number;
  steps: ImageStep[];
  format: 'jpg' | 'png';
}

export interface VideoRecipe {
  kind: 'video';
  scene: SceneName;
  width: number;
  height: number;
  crf: number;
  seconds: number;
}

export interface MeshRecipe {
  kind: 'mesh';
  content: MeshContent;
  steps: MeshStep[];
}

export interface CloudRecipe {
  kind: 'cloud';
  content: CloudContent;
  points: number;
  steps: CloudStep[];
}

export type MediaRecipe = ImageRecipe | VideoRecipe | MeshRecipe | CloudRecipe;

const MAX_SIDE = 4096;

/** The recipe a demo media file name describes, or null when the name is not a demo recipe (a real study file). */
export function parseMediaName(path: string): MediaRecipe | null {
  const ext = extname(path).toLowerCase();
  const parts = basename(path, extname(path)).split('_');
  if (ext === '.glb') return parseMeshName(parts);
  if (ext === '.ply') return parseCloudName(parts);
  if (parts.length < 2) return null;
  const [subjectPart, sizePart, ...stepParts] = parts as [string, string, ...string[]];
  const size = /^(\d{2,4})x(\d{2,4})$/.exec(sizePart);
  if (!size) return null;
  const width = Number(size[1]);
  const height = Number(size[2]);
  if (width > MAX_SIDE || height > MAX_SIDE || width % 2 || height % 2) return null;

  if (ext === '.mp4') {
    if (!isScene(subjectPart)) return null;
    let crf: number | undefined;
    let seconds = 3;
    for (const part of stepParts) {
      const crfMatch = /^crf(\d{1,2})$/.exec(part);
      const secondsMatch = /^(\d{1,2})s$/.exec(part);
      if (crfMatch && Number(crfMatch[1]) <= 51) crf = Number(crfMatch[1]);
      else if (secondsMatch && Number(secondsMatch[1]) >= 1) seconds = Number(secondsMatch[1]);
      else return null;
    }
    return crf === undefined ? null : { kind: 'video', scene: subjectPart, width, height, crf, seconds };
  }

  if (ext !== '.jpg' && ext !== '.png') return null;
  const subject = parseSubject(subjectPart);
  if (!subject) return null;
  const steps: ImageStep[] = [];
  for (const part of stepParts) {
    if (part === 'ref') continue;
    const step = parseStep(part);
    if (!step) return null;
    steps.push(step);
  }
  return { kind: 'image', subject, width, height, steps, format: ext === '.jpg' ? 'jpg' : 'png' };
}

function isScene(value: string): value is SceneName {
  return (SCENES as readonly string[]).includes(value);
}

function parseSubject(part: string): Subject | null {
  if (isScene(part)) return { type: 'scene', scene: part };
  const trap = /^trap-([a-z]+)$/.exec(part);
  if (trap && trap[1]! in TRAP_ANSWERS) return { type: 'trap', answer: trap[1] as TrapAnswer };
  const face = /^face-([a-z]+)-([a-z]+)$/.exec(part);
  if (face && face[1]! in PEOPLE && (EMOTIONS as readonly string[]).includes(face[2]!)) {
    return { type: 'face', person: face[1]!, emotion: face[2] as Emotion };
  }
  return null;
}

function parseStep(part: string): ImageStep | null {
  const match = /^(q|blur|noise|px)(\d{1,3})(?:p(\d))?$/.exec(part);
  if (!match) return null;
  const value = Number(match[3] ? `${match[2]}.${match[3]}` : match[2]);
  switch (match[1]) {
    case 'q':
      return value >= 1 && value <= 100 && !match[3] ? { op: 'jpeg', quality: value } : null;
    case 'blur':
      return value >= 0.3 && value <= 100 ? { op: 'blur', sigma: value } : null;
    case 'noise':
      return value > 0 && value <= 128 ? { op: 'noise', sigma: value } : null;
    case 'px':
      return value >= 2 && value <= 256 && !match[3] ? { op: 'pixelate', block: value } : null;
    default:
      return null;
  }
}

/** A decimal written with "p" as its point (0p25), or NaN. */
const decimal = (text: string | undefined) => (text && /^\d{1,3}(p\d{1,3})?$/.test(text) ? Number(text.replace('p', '.')) : NaN);

function parseMeshName([content, ...stepParts]: string[]): MeshRecipe | null {
  if (!(MESH_CONTENTS as readonly string[]).includes(content!)) return null;
  const steps: MeshStep[] = [];
  for (const part of stepParts) {
    const match = /^(simp|qpos|tex)(.+)$/.exec(part);
    const value = decimal(match?.[2]);
    if (part === 'ref') continue;
    if (part === 'mopt') steps.push({ op: 'meshopt' });
    else if (match?.[1] === 'simp' && value > 0 && value < 1) steps.push({ op: 'simplify', ratio: value });
    else if (match?.[1] === 'qpos' && Number.isInteger(value) && value >= 8 && value <= 16) steps.push({ op: 'quantize', bits: value });
    else if (match?.[1] === 'tex' && Number.isInteger(value) && value >= 1 && value <= 100) steps.push({ op: 'texture', quality: value });
    else return null;
  }
  return { kind: 'mesh', content: content as MeshContent, steps };
}

function parseCloudName([content, count, ...stepParts]: string[]): CloudRecipe | null {
  const thousands = /^(\d{1,4})k$/.exec(count ?? '');
  if (!(CLOUD_CONTENTS as readonly string[]).includes(content!) || !thousands || Number(thousands[1]) < 1) return null;
  const steps: CloudStep[] = [];
  for (const part of stepParts) {
    const match = /^(dec|gn)(.+)$/.exec(part);
    const value = decimal(match?.[2]);
    if (part === 'ref') continue;
    if (match?.[1] === 'dec' && value > 0 && value < 1) steps.push({ op: 'decimate', keep: value });
    else if (match?.[1] === 'gn' && value > 0 && value <= 1) steps.push({ op: 'noise', sigma: value });
    else return null;
  }
  return { kind: 'cloud', content: content as CloudContent, points: Number(thousands[1]) * 1000, steps };
}
