/**
 * How the GPU blur is run for one source size and one deviation (pure, no pixi; unit-tested).
 *
 * The blur is two separable gaussian passes (shaders/bubble/gaussian-pass.frag) that each decimate by `factor`
 * along their direction, then the bubble shader reads the small result with bilinear filtering. Choosing the factor
 * proportional to sigma keeps the taps per source texel constant (about 13 per pass), so the cost does not depend
 * on the deviation, while the gaussian itself is exact (every tap weighted by exp(-d²/2σ²)).
 *
 * Accuracy: the passes sample the gaussian-filtered image every `factor` texels. Its spectrum at the new Nyquist
 * frequency is exp(-2π²(σ/2f)²) ≤ exp(-2π²) with f ≤ σ/2, so nothing aliases. Bilinear reconstruction convolves
 * with a triangle of half-width f, whose variance f²/6 is taken out of the passes' deviation so the total is σ².
 */

/** Factor = floor(sigma / SIGMA_PER_FACTOR): the taps per pass and source texel stay near 6σ/f ≈ 12. */
export const SIGMA_PER_FACTOR = 2;

export interface BlurPlan {
  /** Decimation per axis (1 = full resolution). */
  factor: number;
  /** Deviation used by each pass, in source texels (0: no blur). */
  passSigma: number;
  /** Size of the blurred texture. */
  width: number;
  height: number;
  /** Source size the plan was made for. */
  sourceWidth: number;
  sourceHeight: number;
  /** Multiplies the source's UV to read the blurred texture (its size is rounded up). */
  uvScale: [number, number];
  /** Taps of one output texel of a pass (2 ⌈3σ⌉ + 1), for the cost figures. */
  taps: number;
}

/**
 * @param sigma deviation in source texels (the CSS deviation times texture texels per CSS px).
 */
export function blurPlan(sourceWidth: number, sourceHeight: number, sigma: number): BlurPlan {
  if (!(sourceWidth >= 1) || !(sourceHeight >= 1)) throw new RangeError(`blurPlan: bad source size ${sourceWidth}x${sourceHeight}`);
  const s = Number.isFinite(sigma) && sigma > 0 ? sigma : 0;
  const factor = Math.max(1, Math.min(Math.floor(s / SIGMA_PER_FACTOR), Math.max(sourceWidth, sourceHeight)));
  // At factor 1 the blurred texture is read at its texel centres: no reconstruction blur to compensate.
  const reconstructionVariance = factor > 1 ? (factor * factor) / 6 : 0;
  const passSigma = s === 0 ? 0 : Math.sqrt(Math.max(s * s - reconstructionVariance, 0));
  const width = Math.ceil(sourceWidth / factor);
  const height = Math.ceil(sourceHeight / factor);
  return {
    factor,
    passSigma,
    width,
    height,
    sourceWidth,
    sourceHeight,
    uvScale: [sourceWidth / (factor * width), sourceHeight / (factor * height)],
    taps: passSigma === 0 ? 1 : 2 * Math.ceil(3 * passSigma) + 1,
  };
}

/** Same plan (same textures and passes) for a second call? */
export function samePlan(a: BlurPlan, b: BlurPlan): boolean {
  return a.factor === b.factor && a.passSigma === b.passSigma && a.sourceWidth === b.sourceWidth && a.sourceHeight === b.sourceHeight;
}
