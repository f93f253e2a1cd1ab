/**
 * Pseudo-isochromatic ("Ishihara-like") plate layout: a disc packed with non-overlapping dots of varied size.
 * Dots whose centre falls on the digit mask take a reddish-orange colour, the others a yellow-green one.
 * Both families draw their CIELAB lightness from the SAME range, so the number cannot be read from brightness;
 * only the red–green (a*) difference, the one a red–green deficiency confuses, reveals it.
 * Everything here is pure and seeded, so the committed PNGs are reproducible byte for byte.
 */

import { seededRandom } from '../demo/scenes/svg.js';

export interface Dot {
  x: number;
  y: number;
  r: number;
  figure: boolean;
  /** sRGB hex colour, e.g. #d2773c */
  fill: string;
}

/** CIELAB (D65) to an sRGB hex string, clamped into gamut. */
export function labToHex(L: number, a: number, b: number): string {
  const fy = (L + 16) / 116;
  const fx = fy + a / 500;
  const fz = fy - b / 200;
  const inv = (t: number) => (t ** 3 > 0.008856 ? t ** 3 : (t - 16 / 116) / 7.787);
  const X = 0.95047 * inv(fx);
  const Y = 1.0 * inv(fy);
  const Z = 1.08883 * inv(fz);
  const linear = [
    3.2406 * X - 1.5372 * Y - 0.4986 * Z,
    -0.9689 * X + 1.8758 * Y + 0.0415 * Z,
    0.0557 * X - 0.204 * Y + 1.057 * Z,
  ];
  return (
    '#' +
    linear
      .map((c) => {
        const v = c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055;
        return Math.round(Math.min(1, Math.max(0, v)) * 255)
          .toString(16)
          .padStart(2, '0');
      })
      .join('')
  );
}

/** WCAG relative luminance of an sRGB hex colour (used by the tests to prove brightness does not give the figure away). */
export function relativeLuminance(hex: string): number {
  const channels = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const [r, g, b] = channels.map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

const LIGHTNESS = [54, 78] as const;
const FIGURE_A = [22, 40] as const; // red-orange
const FIGURE_B = [30, 52] as const;
const GROUND_A = [-30, -12] as const; // yellow-green
const GROUND_B = [32, 56] as const;

export function dotColour(figure: boolean, random: () => number): string {
  const pick = ([lo, hi]: readonly [number, number]) => lo + (hi - lo) * random();
  const L = pick(LIGHTNESS);
  return figure ? labToHex(L, pick(FIGURE_A), pick(FIGURE_B)) : labToHex(L, pick(GROUND_A), pick(GROUND_B));
}

export interface PlateOptions {
  size: number;
  seed: number;
  /** Whether the point (x, y) of the plate lies on the number. */
  onFigure(x: number, y: number): boolean;
}

/** Dot radii tried from large to small, so small dots fill the gaps left by big ones. */
const RADIUS_LEVELS = [8.5, 7, 6, 5, 4.2, 3.5, 2.8];
const GAP = 1.4;

/** Packs the plate disc with dots (rejection sampling on a uniform grid of buckets). */
export function layoutPlate({ size, seed, onFigure }: PlateOptions): Dot[] {
  const random = seededRandom(seed);
  const centre = size / 2;
  const plateRadius = size / 2 - 4;
  const cell = 2 * RADIUS_LEVELS[0]! * 1.1 + GAP;
  const columns = Math.ceil(size / cell);
  const buckets: Dot[][] = Array.from({ length: columns * columns }, () => []);
  const dots: Dot[] = [];

  const fits = (x: number, y: number, r: number): boolean => {
    if (Math.hypot(x - centre, y - centre) + r > plateRadius) return false;
    const cx = Math.floor(x / cell);
    const cy = Math.floor(y / cell);
    for (let j = cy - 1; j <= cy + 1; j++) {
      for (let i = cx - 1; i <= cx + 1; i++) {
        if (i < 0 || j < 0 || i >= columns || j >= columns) continue;
        for (const d of buckets[j * columns + i]!) if (Math.hypot(d.x - x, d.y - y) < d.r + r + GAP) return false;
      }
    }
    return true;
  };

  for (const level of RADIUS_LEVELS) {
    const attempts = Math.round((6 * plateRadius * plateRadius) / (level * level));
    for (let n = 0; n < attempts; n++) {
      const angle = random() * 2 * Math.PI;
      const dist = Math.sqrt(random()) * plateRadius;
      const x = centre + dist * Math.cos(angle);
      const y = centre + dist * Math.sin(angle);
      const r = level * (0.9 + 0.2 * random());
      if (!fits(x, y, r)) continue;
      const figure = onFigure(x, y);
      const dot: Dot = { x, y, r, figure, fill: dotColour(figure, random) };
      dots.push(dot);
      buckets[Math.floor(y / cell) * columns + Math.floor(x / cell)]!.push(dot);
    }
  }
  return dots;
}

export function plateSvg(size: number, dots: readonly Dot[]): string {
  const circles = dots
    .map((d) => `<circle cx="${d.x.toFixed(2)}" cy="${d.y.toFixed(2)}" r="${d.r.toFixed(2)}" fill="${d.fill}"/>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}">${circles}</svg>`;
}
