/**
 * Pure: which YUV → RGB conversion a clip calls for (docs/pixels.md). The clip's own tags (the
 * stream's VUI or the container's colour box, read by mediabunny) decide; an untagged clip follows mpv's
 * convention: BT.709 when the picture is at least 1280 wide or more than 576 lines high, BT.601 otherwise, and
 * limited range. The same rule picks the reference decode of the tests (scripts/make-colour-clips.ts).
 */

export type ClipMatrix = 'bt601' | 'bt709';

export interface ClipColour {
  matrix: ClipMatrix;
  fullRange: boolean;
  /** Whether the matrix and the range came from the file (false: the convention chose). */
  tagged: { matrix: boolean; range: boolean };
}

/** The matrices WebCodecs and mediabunny name: BT.470 BG and SMPTE 170M are BT.601's coefficients. */
const MATRICES: Readonly<Record<string, ClipMatrix>> = { bt709: 'bt709', bt470bg: 'bt601', smpte170m: 'bt601' };

/** The convention for an untagged picture of this coded size (mpv's). */
export function conventionalMatrix(width: number, height: number): ClipMatrix {
  return width >= 1280 || height > 576 ? 'bt709' : 'bt601';
}

/** The conversion a clip calls for, from its colour tags (null fields: untagged) and its coded size. */
export function clipColour(space: { matrix?: string | null; fullRange?: boolean | null } | null | undefined, width: number, height: number): ClipColour {
  const tagged = space?.matrix ? MATRICES[space.matrix] : undefined;
  const fullRange = space?.fullRange ?? null;
  return {
    matrix: tagged ?? conventionalMatrix(width, height),
    fullRange: fullRange === true,
    tagged: { matrix: tagged !== undefined, range: fullRange !== null },
  };
}

/** The shader's constants (shaders/video/yuv-to-rgb.frag): luma and chroma offset and scale, and Kr, Kb. */
export function conversionConstants(colour: ClipColour): { range: [number, number, number, number]; k: [number, number] } {
  const range: [number, number, number, number] = colour.fullRange ? [0, 1 / 255, 128, 1 / 255] : [16, 1 / 219, 128, 1 / 224];
  const k: [number, number] = colour.matrix === 'bt709' ? [0.2126, 0.0722] : [0.299, 0.114];
  return { range, k };
}
