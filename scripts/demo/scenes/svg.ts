/** Small helpers shared by the SVG scene and face drawings. Scenes are drawn in a viewBox 900 units high. */

export const SCENE_HEIGHT = 900;

/** Deterministic PRNG (mulberry32) so a regenerated demo image is identical to the previous one. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random number in [min, max). */
export function between(random: () => number, min: number, max: number): number {
  return min + (max - min) * random();
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** Fixed-precision number for compact, stable SVG text. */
export function n(value: number): string {
  return Number(value.toFixed(1)).toString();
}

export function points(coords: ReadonlyArray<readonly [number, number]>): string {
  return coords.map(([x, y]) => `${n(x)},${n(y)}`).join(' ');
}

/** Wraps drawing content into a complete SVG document rendered at width x height pixels. */
export function svgDocument(viewWidth: number, viewHeight: number, width: number, height: number, body: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${n(viewWidth)} ${n(viewHeight)}" preserveAspectRatio="xMidYMid slice">${body}</svg>`
  );
}

/** A filter that overlays fractal noise (grain / surface texture) tinted by `rgb` at the given opacity. */
export function textureFilter(id: string, baseFrequency: string, seed: number, rgb: [number, number, number], opacity: number): string {
  const [r, g, b] = rgb.map((c) => (c / 255).toFixed(3));
  return (
    `<filter id="${id}" x="0" y="0" width="100%" height="100%">` +
    `<feTurbulence type="fractalNoise" baseFrequency="${baseFrequency}" numOctaves="3" seed="${seed}" result="noise"/>` +
    `<feColorMatrix in="noise" type="matrix" values="0 0 0 0 ${r}  0 0 0 0 ${g}  0 0 0 0 ${b}  ${opacity * 2} 0 0 0 ${-opacity * 0.6}"/>` +
    `<feComposite in2="SourceGraphic" operator="in"/>` +
    `</filter>`
  );
}

export const FONT = "DejaVu Sans, Liberation Sans, Arial, sans-serif";
