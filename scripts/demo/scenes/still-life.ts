import { between, FONT, n, pick, SCENE_HEIGHT as H, seededRandom, textureFilter } from './svg.js';

const WORDS = ['quality', 'vision', 'light', 'colour', 'observer', 'contrast', 'detail', 'scene', 'frame', 'texture', 'signal', 'noise', 'study', 'the', 'of', 'and', 'a', 'in', 'with'] as const;

/**
 * A table by a window: wood grain, a checkered cloth, a fruit bowl, a striped vase with flowers, an open
 * book and a newspaper full of tiny text. Round shaded fruits show banding; text and checks show blur.
 */
export function stillLifeSvg(width: number): string {
  const random = seededRandom(777);
  const W = width;
  const table = 560;
  const cx = W / 2;

  const textLines = (x: number, y: number, lineWidth: number, lines: number, size: number, color: string): string =>
    Array.from({ length: lines }, (_, i) => {
      let line = '';
      while (line.length * size * 0.55 < lineWidth) line += pick(random, WORDS) + ' ';
      return `<text x="${n(x)}" y="${n(y + i * size * 1.35)}" font-family="${FONT}" font-size="${size}" fill="${color}" textLength="${n(lineWidth)}" lengthAdjust="spacingAndGlyphs">${line.trim()}</text>`;
    }).join('');

  const fruit = (x: number, y: number, r: number, gradient: string, stem: boolean): string =>
    `<circle cx="${n(x)}" cy="${n(y)}" r="${n(r)}" fill="url(#${gradient})"/>` +
    `<ellipse cx="${n(x - r * 0.35)}" cy="${n(y - r * 0.4)}" rx="${n(r * 0.22)}" ry="${n(r * 0.13)}" fill="#ffffff" opacity="0.55"/>` +
    (stem ? `<path d="M${n(x)},${n(y - r * 0.85)} q4,-18 12,-24" stroke="#4b3320" stroke-width="4" fill="none"/>` : '');

  const grapes = Array.from({ length: 26 }, (_, i) => {
    const row = Math.floor(Math.sqrt(i * 2));
    return fruit(cx + 150 + between(random, -40, 40) - row * 4, table + 10 + row * 16 + between(random, -4, 4), 13, 'grape', false);
  }).join('');

  const flowers = Array.from({ length: 7 }, () => {
    const fx = cx - 330 + between(random, -90, 90);
    const fy = between(random, 150, 300);
    const color = pick(random, ['#e74c3c', '#f39c12', '#f7dc6f', '#ffffff', '#c0392b', '#d98cb3']);
    const petals = Array.from({ length: 8 }, (_, p) => {
      const a = (p / 8) * Math.PI * 2;
      return `<ellipse cx="${n(fx + Math.cos(a) * 20)}" cy="${n(fy + Math.sin(a) * 20)}" rx="16" ry="9" transform="rotate(${n((a * 180) / Math.PI)} ${n(fx + Math.cos(a) * 20)} ${n(fy + Math.sin(a) * 20)})" fill="${color}"/>`;
    }).join('');
    return `<path d="M${n(fx)},${n(fy)} Q${n((fx + cx - 330) / 2 + 10)},${n((fy + 420) / 2)} ${n(cx - 330)},420" stroke="#3f7a35" stroke-width="5" fill="none"/>${petals}<circle cx="${n(fx)}" cy="${n(fy)}" r="11" fill="#6b4a1b"/>`;
  }).join('');

  const bookX = cx - 120;
  const book =
    `<path d="M${n(bookX - 200)},760 L${n(bookX - 10)},740 L${n(bookX - 10)},880 L${n(bookX - 220)},890 Z" fill="#fbf6ea"/>` +
    `<path d="M${n(bookX + 10)},740 L${n(bookX + 200)},760 L${n(bookX + 220)},890 L${n(bookX + 10)},880 Z" fill="#f7f1e2"/>` +
    `<rect x="${n(bookX - 10)}" y="740" width="20" height="142" fill="#d8cfbd"/>` +
    textLines(bookX - 190, 778, 160, 8, 11, '#3b3b3b') +
    textLines(bookX + 25, 778, 160, 8, 11, '#3b3b3b');

  const paperX = cx + 260;
  const newspaper =
    `<rect x="${n(paperX)}" y="700" width="300" height="190" fill="#ece8df" transform="rotate(-6 ${n(paperX + 150)} 795)"/>` +
    `<g transform="rotate(-6 ${n(paperX + 150)} 795)">` +
    `<text x="${n(paperX + 150)}" y="736" font-family="${FONT}" font-size="26" font-weight="bold" fill="#222" text-anchor="middle">THE DAILY GLIMPSE</text>` +
    `<line x1="${n(paperX + 10)}" y1="746" x2="${n(paperX + 290)}" y2="746" stroke="#222" stroke-width="2"/>` +
    textLines(paperX + 12, 762, 130, 9, 9, '#444') +
    textLines(paperX + 156, 762, 130, 9, 9, '#444') +
    `</g>`;

  const cup =
    `<ellipse cx="${n(cx + 60)}" cy="775" rx="70" ry="16" fill="#d9d9d9"/>` +
    `<path d="M${n(cx + 15)},700 h90 l-8,70 h-74 Z" fill="#f4f4f4"/>` +
    `<path d="M${n(cx + 103)},712 q30,5 18,32 q-8,14 -24,14" stroke="#f4f4f4" stroke-width="8" fill="none"/>` +
    `<ellipse cx="${n(cx + 60)}" cy="700" rx="45" ry="9" fill="#5b3a1e"/>` +
    `<g opacity="0.35" filter="url(#soft)" stroke="#ffffff" stroke-width="8" fill="none"><path d="M${n(cx + 50)},690 q-15,-30 5,-55 q15,-25 -5,-50"/><path d="M${n(cx + 75)},690 q15,-30 -5,-55"/></g>`;

  return (
    `<defs>` +
    `<linearGradient id="wall" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#efe2c6"/><stop offset="1" stop-color="#b99f7a"/></linearGradient>` +
    `<linearGradient id="wood" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#8b5a2b"/><stop offset="1" stop-color="#5a3618"/></linearGradient>` +
    `<radialGradient id="apple" cx="0.4" cy="0.35"><stop offset="0" stop-color="#ff6b5b"/><stop offset="0.7" stop-color="#c0261b"/><stop offset="1" stop-color="#7d120c"/></radialGradient>` +
    `<radialGradient id="orange" cx="0.4" cy="0.35"><stop offset="0" stop-color="#ffc266"/><stop offset="0.7" stop-color="#f08a12"/><stop offset="1" stop-color="#b35a00"/></radialGradient>` +
    `<radialGradient id="grape" cx="0.4" cy="0.35"><stop offset="0" stop-color="#a56cc1"/><stop offset="1" stop-color="#3e1f52"/></radialGradient>` +
    `<linearGradient id="bowl" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#e9edf2"/><stop offset="1" stop-color="#8d99a8"/></linearGradient>` +
    `<pattern id="checks" width="48" height="48" patternUnits="userSpaceOnUse"><rect width="48" height="48" fill="#f6f1ea"/><rect width="24" height="24" fill="#b8322a"/><rect x="24" y="24" width="24" height="24" fill="#b8322a"/></pattern>` +
    `<pattern id="vaseStripes" width="30" height="30" patternUnits="userSpaceOnUse"><rect width="30" height="30" fill="#f3f6fb"/><rect width="30" height="10" fill="#2a5ea8"/></pattern>` +
    `<linearGradient id="light" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="#fffbe8" stop-opacity="0.55"/><stop offset="1" stop-color="#fffbe8" stop-opacity="0"/></linearGradient>` +
    `<filter id="soft" x="-20%" y="-20%" width="140%" height="140%"><feGaussianBlur stdDeviation="6"/></filter>` +
    textureFilter('plaster', '0.04', 31, [90, 70, 40], 0.25) +
    textureFilter('grainWood', '0.004 0.09', 32, [40, 20, 5], 0.6) +
    textureFilter('grain', '0.9', 33, [128, 128, 128], 0.12) +
    `</defs>` +
    `<rect width="${n(W)}" height="${table}" fill="url(#wall)"/>` +
    `<rect width="${n(W)}" height="${table}" fill="#000" filter="url(#plaster)"/>` +
    `<rect x="${n(W * 0.68)}" y="60" width="${n(W * 0.22)}" height="330" fill="#bcd7ea" stroke="#f7f2e8" stroke-width="16"/>` +
    `<line x1="${n(W * 0.79)}" y1="60" x2="${n(W * 0.79)}" y2="390" stroke="#f7f2e8" stroke-width="10"/>` +
    `<polygon points="${n(W * 0.68)},60 ${n(W * 0.9)},60 ${n(W * 0.5)},${table} ${n(W * 0.1)},${table}" fill="url(#light)"/>` +
    `<rect y="${table}" width="${n(W)}" height="${H - table}" fill="url(#wood)"/>` +
    `<rect y="${table}" width="${n(W)}" height="${H - table}" fill="#000" filter="url(#grainWood)"/>` +
    `<path d="M${n(cx - 420)},${table + 40} L${n(cx + 260)},${table + 40} L${n(cx + 330)},${H} L${n(cx - 500)},${H} Z" fill="url(#checks)"/>` +
    flowers +
    `<path d="M${n(cx - 380)},420 q-40,70 -10,150 h100 q30,-80 -10,-150 Z" fill="url(#vaseStripes)"/>` +
    `<ellipse cx="${n(cx - 330)}" cy="420" rx="42" ry="10" fill="#1f467e"/>` +
    fruit(cx - 40, table - 10, 58, 'orange', false) + fruit(cx + 60, table - 25, 55, 'apple', true) + fruit(cx - 130, table + 5, 50, 'apple', true) +
    grapes +
    `<path d="M${n(cx - 210)},${table} q170,110 340,0 Z" fill="url(#bowl)"/>` +
    `<path d="M${n(cx - 230)},${table - 2} h380" stroke="#f7f9fb" stroke-width="8"/>` +
    cup + book + newspaper +
    `<rect width="${n(W)}" height="${H}" fill="#000" filter="url(#grain)"/>`
  );
}
