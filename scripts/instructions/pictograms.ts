/**
 * SVG pieces of the instruction images (scripts/make-instruction-images.ts): a picture, a vote button, the mouse
 * pointer, arrows and brackets. Word-free on purpose: the same image serves the English and the French pages.
 */

export const WIDTH = 640;
export const HEIGHT = 360;

const BLUE = '#1f6fd0';
const INK = '#37474f';

/** How a picture is degraded, so a participant sees what "quality" and "difference" mean here. */
export type Look = 'clear' | 'blur1' | 'blur2' | 'blur3' | 'noise' | 'blocks';

/** Filters used by `picture` (put once in <defs>). */
export const DEFS = `<defs>
  <filter id="blur1" x="-5%" y="-5%" width="110%" height="110%"><feGaussianBlur stdDeviation="1.7"/></filter>
  <filter id="blur2" x="-5%" y="-5%" width="110%" height="110%"><feGaussianBlur stdDeviation="2.6"/></filter>
  <filter id="blur3" x="-5%" y="-5%" width="110%" height="110%"><feGaussianBlur stdDeviation="4.5"/></filter>
  <filter id="noise"><feTurbulence type="fractalNoise" baseFrequency="0.85" numOctaves="2" seed="3" result="n"/>
    <feColorMatrix in="n" type="matrix" result="grain"
      values="0.33 0.33 0.33 0 0  0.33 0.33 0.33 0 0  0.33 0.33 0.33 0 0  0 0 0 0 1"/>
    <feComponentTransfer in="grain" result="contrast"><feFuncR type="linear" slope="4" intercept="-1.5"/>
      <feFuncG type="linear" slope="4" intercept="-1.5"/><feFuncB type="linear" slope="4" intercept="-1.5"/></feComponentTransfer>
    <feBlend in="contrast" in2="SourceGraphic" mode="overlay"/></filter>
  <filter id="shadow" x="-10%" y="-10%" width="130%" height="140%"><feDropShadow dx="0" dy="2" stdDeviation="2" flood-opacity="0.3"/></filter>
</defs>`;

/** A landscape picture (sky, sun, two hills) in a frame; `look` degrades it; `strong` draws a thick frame. */
export function picture(x: number, y: number, w: number, h: number, look: Look = 'clear', strong = false): string {
  const id = `clip${x}_${y}_${w}`;
  const filter = look === 'clear' || look === 'blocks' ? '' : ` filter="url(#${look})"`;
  const scene =
    `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="#8ec5ef"/>` +
    `<circle cx="${x + w * 0.75}" cy="${y + h * 0.3}" r="${h * 0.13}" fill="#f7c948"/>` +
    `<polygon points="${x},${y + h} ${x + w * 0.32},${y + h * 0.38} ${x + w * 0.62},${y + h} " fill="#3f7d4c"/>` +
    `<polygon points="${x + w * 0.38},${y + h} ${x + w * 0.7},${y + h * 0.52} ${x + w},${y + h * 0.8} ${x + w},${y + h}" fill="#2b5a37"/>` +
    `<rect x="${x + w * 0.12}" y="${y + h * 0.72}" width="${w * 0.08}" height="${h * 0.2}" fill="#6d4c2f"/>` +
    `<circle cx="${x + w * 0.16}" cy="${y + h * 0.68}" r="${h * 0.11}" fill="#5fa35a"/>`;
  const blocks = look === 'blocks' ? blockArtefacts(x, y, w, h) : '';
  return (
    `<clipPath id="${id}"><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="3"/></clipPath>` +
    `<g clip-path="url(#${id})"><g${filter}>${scene}</g>${blocks}</g>` +
    `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="3" fill="none" stroke="${strong ? INK : '#607d8b'}" stroke-width="${strong ? 4 : 1.5}"/>`
  );
}

/** Points of a sphere, evenly spread (Fibonacci lattice), as unit vectors; the same every run. */
function spherePoints(count: number): Array<[number, number, number]> {
  const golden = Math.PI * (3 - Math.sqrt(5));
  return Array.from({ length: count }, (_, i) => {
    const y = 1 - (2 * (i + 0.5)) / count;
    const r = Math.sqrt(1 - y * y);
    return [Math.cos(golden * i) * r, y, Math.sin(golden * i) * r];
  });
}

/**
 * A 3D object (a point-cloud ball on the stage's grey, turned a little) in a frame, with the arrow of its turning:
 * the 3D studies' counterpart of `picture`. `look` degrades it as the studies do: 'blocks' keeps a quarter of the
 * points (decimation), 'noise' scatters them (geometry noise), the blurs blur it.
 */
export function objectPicture(x: number, y: number, w: number, h: number, look: Look = 'clear', strong = false): string {
  const id = `clip${x}_${y}_${w}`;
  const filter = look.startsWith('blur') ? ` filter="url(#${look})"` : '';
  const cx = x + w / 2;
  const cy = y + h * 0.45;
  const radius = h * 0.33;
  const tilt = 0.35;
  const dots = spherePoints(220)
    .filter((_, i) => look !== 'blocks' || i % 4 === 0)
    .map(([px, py, pz], i) => {
      // Tilted towards the viewer; only the near half is drawn, darker towards the rim (lit from the front).
      const ty = py * Math.cos(tilt) - pz * Math.sin(tilt);
      const tz = py * Math.sin(tilt) + pz * Math.cos(tilt);
      if (tz < 0) return '';
      const jitter = look === 'noise' ? [Math.sin(i * 12.9898) * 0.09, Math.sin(i * 78.233) * 0.09] : [0, 0];
      const shade = Math.round(120 + 110 * tz);
      const colour = `rgb(${shade},${Math.round(shade * 0.62)},${Math.round(shade * 0.3)})`;
      return `<circle cx="${(cx + (px + jitter[0]!) * radius).toFixed(1)}" cy="${(cy + (ty + jitter[1]!) * radius).toFixed(1)}" r="${(h * 0.018).toFixed(1)}" fill="${colour}"/>`;
    })
    .join('');
  // The turning: an arc under the ball, its arrow head on the right.
  const rx = radius * 1.25;
  const ry = radius * 0.28;
  const ay = cy + radius * 0.95;
  const turn =
    `<path d="M ${(cx - rx).toFixed(1)} ${ay.toFixed(1)} A ${rx.toFixed(1)} ${ry.toFixed(1)} 0 0 0 ${(cx + rx * 0.92).toFixed(1)} ${(ay - ry * 0.4).toFixed(1)}" fill="none" stroke="${INK}" stroke-width="2.5"/>` +
    `<polygon points="${(cx + rx).toFixed(1)},${(ay - ry * 1.2).toFixed(1)} ${(cx + rx * 0.78).toFixed(1)},${(ay - ry * 0.9).toFixed(1)} ${(cx + rx * 1.02).toFixed(1)},${(ay + ry * 0.3).toFixed(1)}" fill="${INK}"/>`;
  return (
    `<clipPath id="${id}"><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="3"/></clipPath>` +
    `<g clip-path="url(#${id})"><rect x="${x}" y="${y}" width="${w}" height="${h}" fill="#808080"/><g${filter}>${dots}</g>${turn}</g>` +
    `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="3" fill="none" stroke="${strong ? INK : '#607d8b'}" stroke-width="${strong ? 4 : 1.5}"/>`
  );
}

/** Flat 8x8-ish squares, the look of a heavily compressed picture. */
function blockArtefacts(x: number, y: number, w: number, h: number): string {
  const size = Math.round(w / 10);
  let out = '';
  for (let by = 0; by * size < h; by++) {
    for (let bx = 0; bx * size < w; bx++) {
      if ((bx * 7 + by * 3) % 4 !== 0) continue;
      out += `<rect x="${x + bx * size}" y="${y + by * size}" width="${size}" height="${size}" fill="#ffffff" opacity="0.22"/>`;
    }
  }
  return out;
}

/** A vote button; `chosen` draws it pressed. `fill` overrides the colour (coloured ACR levels). */
export function voteButton(x: number, y: number, w: number, h: number, opts: { chosen?: boolean; fill?: string; icon?: string } = {}): string {
  const fill = opts.fill ?? BLUE;
  const ring = opts.chosen ? `<rect x="${x - 4}" y="${y - 4}" width="${w + 8}" height="${h + 8}" rx="${h / 2 + 4}" fill="none" stroke="${INK}" stroke-width="3"/>` : '';
  return `${ring}<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="${h / 2}" fill="${fill}" filter="url(#shadow)"/>${opts.icon ?? ''}`;
}

/** The mouse pointer, its tip at (x, y), with a click burst. */
export function pointer(x: number, y: number): string {
  const burst = [0, 1, 2, 3, 4]
    .map((i) => {
      const a = (-150 + i * 30) * (Math.PI / 180);
      const r1 = 9;
      const r2 = 17;
      return `<line x1="${x + r1 * Math.cos(a)}" y1="${y + r1 * Math.sin(a)}" x2="${x + r2 * Math.cos(a)}" y2="${y + r2 * Math.sin(a)}" stroke="${INK}" stroke-width="2.5" stroke-linecap="round"/>`;
    })
    .join('');
  return `${burst}<path d="M ${x} ${y} l 0 28 l 7 -6 l 6 13 l 6 -3 l -6 -12 l 10 -1 z" fill="#fff" stroke="#111" stroke-width="2" stroke-linejoin="round"/>`;
}

/** A right-pointing arrow from (x1, y) to (x2, y): what comes next. */
export function arrow(x1: number, x2: number, y: number): string {
  return (
    `<line x1="${x1}" y1="${y}" x2="${x2 - 12}" y2="${y}" stroke="${INK}" stroke-width="5" stroke-linecap="round"/>` +
    `<polygon points="${x2},${y} ${x2 - 16},${y - 10} ${x2 - 16},${y + 10}" fill="${INK}"/>`
  );
}

/** A curly-ish bracket on the right of a block from y1 to y2 at x, ending in a small tick towards the button. */
export function bracketRight(x: number, y1: number, y2: number): string {
  const mid = (y1 + y2) / 2;
  return `<path d="M ${x} ${y1} q 10 0 10 10 v ${mid - y1 - 20} q 0 10 10 10 q -10 0 -10 10 v ${y2 - mid - 20} q 0 10 -10 10" fill="none" stroke="${INK}" stroke-width="3"/>`;
}

/** A small picture icon drawn on a button, so the button reads as "this picture / this pair". */
export function miniPictures(x: number, y: number, count: number, gap = 4, w = 22, h = 14): string {
  let out = '';
  for (let i = 0; i < count; i++) {
    const px = x + i * (w + gap);
    out +=
      `<rect x="${px}" y="${y}" width="${w}" height="${h}" rx="2" fill="#8ec5ef" stroke="#fff" stroke-width="1.5"/>` +
      `<polygon points="${px},${y + h} ${px + w * 0.4},${y + h * 0.35} ${px + w * 0.8},${y + h}" fill="#3f7d4c"/>`;
  }
  return out;
}

/** A small ball icon drawn on a button, so the button reads as "this object" (the 3D `miniPictures`). */
export function miniObjects(x: number, y: number, count: number, gap = 4, w = 22, h = 14): string {
  let out = '';
  for (let i = 0; i < count; i++) {
    const cx = x + i * (w + gap) + w / 2;
    out += `<circle cx="${cx}" cy="${y + h / 2}" r="${h / 2}" fill="#d9894a" stroke="#fff" stroke-width="1.5"/>`;
  }
  return out;
}

/** What the instruction images show: pictures (2D studies) or 3D objects, and the icon of each on the buttons. */
export interface Subject {
  picture: typeof picture;
  mini: typeof miniPictures;
}
export const PICTURES: Subject = { picture, mini: miniPictures };
export const OBJECTS: Subject = { picture: objectPicture, mini: miniObjects };

export function svg(body: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">` +
    `${DEFS}<rect width="${WIDTH}" height="${HEIGHT}" rx="12" fill="#eef2f6"/>${body}</svg>\n`
  );
}
