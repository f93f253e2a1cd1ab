import { between, FONT, n, pick, SCENE_HEIGHT as H, seededRandom, textureFilter } from './svg.js';

const SHOP_SIGNS = ['CAFÉ', 'BOOKS', 'HOTEL', 'BAKERY', 'PHARMACY', 'CINEMA', 'FLOWERS', 'MARKET'] as const;
const FACADES = ['#b5654a', '#d8c3a5', '#8e9aaf', '#c98c5a', '#6b7b8c', '#e0b77c', '#a35d5d', '#7f8f74'] as const;

/**
 * A street at dusk: facades with window grids (lit or dark), brick texture, shop signs with small text,
 * striped awnings, cars, lamps and a crosswalk. Regular high-contrast grids make blocking and ringing obvious.
 */
export function citySvg(width: number): string {
  const random = seededRandom(4242);
  const W = width;
  const street = 760;

  const skyline = (() => {
    let x = 0;
    let out = '';
    while (x < W) {
      const w = between(random, 60, 140);
      const top = between(random, 200, 420);
      out += `<rect x="${n(x)}" y="${n(top)}" width="${n(w)}" height="${n(street - top)}" fill="#56608a"/>`;
      for (let wy = top + 14; wy < street - 250; wy += 22) {
        for (let wx = x + 8; wx < x + w - 10; wx += 16) {
          if (random() < 0.35) out += `<rect x="${n(wx)}" y="${n(wy)}" width="7" height="10" fill="#f3d98a" opacity="0.8"/>`;
        }
      }
      x += w + between(random, 0, 10);
    }
    return out;
  })();

  let buildings = '';
  let outlines = ''; // facade rectangles again, to clip the plaster texture to the buildings
  let x = -20;
  let shop = 0;
  while (x < W) {
    const w = between(random, 170, 280);
    const top = between(random, 260, 520);
    const facade = pick(random, FACADES);
    const brick = random() < 0.45;
    buildings += `<rect x="${n(x)}" y="${n(top)}" width="${n(w)}" height="${n(street - top)}" fill="${facade}"/>`;
    outlines += `<rect x="${n(x)}" y="${n(top)}" width="${n(w)}" height="${n(street - top)}"/>`;
    if (brick) buildings += `<rect x="${n(x)}" y="${n(top)}" width="${n(w)}" height="${n(street - top)}" fill="url(#bricks)"/>`;
    buildings += `<rect x="${n(x - 6)}" y="${n(top - 14)}" width="${n(w + 12)}" height="14" fill="#3d3a3f"/>`;
    for (let wy = top + 30; wy < street - 190; wy += 62) {
      for (let wx = x + 18; wx < x + w - 40; wx += 48) {
        const lit = random() < 0.45;
        buildings +=
          `<rect x="${n(wx)}" y="${n(wy)}" width="28" height="40" fill="${lit ? '#ffd77a' : '#2e3a4f'}" stroke="#efe9e0" stroke-width="3"/>` +
          `<line x1="${n(wx + 14)}" y1="${n(wy)}" x2="${n(wx + 14)}" y2="${n(wy + 40)}" stroke="#efe9e0" stroke-width="2"/>`;
      }
    }
    const sign = SHOP_SIGNS[shop++ % SHOP_SIGNS.length]!;
    const awning = pick(random, ['url(#awningRed)', 'url(#awningGreen)', 'url(#awningBlue)']);
    buildings +=
      `<rect x="${n(x + 10)}" y="${n(street - 170)}" width="${n(w - 20)}" height="34" fill="#222" rx="3"/>` +
      `<text x="${n(x + w / 2)}" y="${n(street - 146)}" font-family="${FONT}" font-size="22" font-weight="bold" fill="#f7f1e3" text-anchor="middle">${sign}</text>` +
      `<path d="M${n(x + 10)},${n(street - 132)} h${n(w - 20)} l-14,36 h${n(-(w - 48))} Z" fill="${awning}"/>` +
      `<rect x="${n(x + 22)}" y="${n(street - 92)}" width="${n(w * 0.5)}" height="82" fill="#9fc3d6" stroke="#333" stroke-width="3"/>` +
      `<text x="${n(x + 28)}" y="${n(street - 70)}" font-family="${FONT}" font-size="10" fill="#1d2a33">open 9–19 · est. ${1900 + Math.floor(random() * 120)}</text>` +
      `<rect x="${n(x + w * 0.62)}" y="${n(street - 92)}" width="${n(w * 0.26)}" height="92" fill="#4b3426"/>`;
    x += w;
  }

  const car = (cx: number, color: string): string =>
    `<rect x="${n(cx)}" y="${street + 38}" width="170" height="44" rx="14" fill="${color}"/>` +
    `<path d="M${n(cx + 30)},${street + 40} l22,-30 h66 l26,30 Z" fill="${color}"/>` +
    `<path d="M${n(cx + 40)},${street + 38} l16,-22 h24 v22 Z M${n(cx + 86)},${street + 38} v-22 h28 l18,22 Z" fill="#bcd6e6"/>` +
    `<circle cx="${n(cx + 38)}" cy="${street + 84}" r="17" fill="#1b1b1b"/><circle cx="${n(cx + 38)}" cy="${street + 84}" r="7" fill="#9a9a9a"/>` +
    `<circle cx="${n(cx + 132)}" cy="${street + 84}" r="17" fill="#1b1b1b"/><circle cx="${n(cx + 132)}" cy="${street + 84}" r="7" fill="#9a9a9a"/>` +
    `<rect x="${n(cx + 160)}" y="${street + 50}" width="10" height="8" fill="#ffe9a8"/>`;
  const cars = Array.from({ length: Math.max(1, Math.round(W / 700)) }, (_, i) =>
    car(i * 700 + between(random, 80, 400), pick(random, ['#c0392b', '#2c7fb8', '#f1c40f', '#ecf0f1', '#27ae60'])),
  ).join('');

  const lamps = Array.from({ length: Math.round(W / 380) }, (_, i) => {
    const lx = i * 380 + 160;
    return (
      `<rect x="${lx}" y="${street - 250}" width="8" height="270" fill="#2b2b2b"/>` +
      `<circle cx="${lx + 4}" cy="${street - 256}" r="70" fill="url(#lampGlow)"/>` +
      `<rect x="${lx - 10}" y="${street - 268}" width="28" height="18" rx="4" fill="#fff3c4"/>`
    );
  }).join('');

  const crosswalk = Array.from({ length: 9 }, (_, i) => `<rect x="${n(W * 0.55 + i * 34)}" y="${street + 24}" width="20" height="116" fill="#e8e8e8" opacity="0.9"/>`).join('');
  const dashes = Array.from({ length: Math.round(W / 120) }, (_, i) => `<rect x="${i * 120 + 20}" y="${street + 96}" width="60" height="6" fill="#e9d26b"/>`).join('');

  const trafficLight =
    `<rect x="${n(W * 0.53)}" y="${street - 190}" width="9" height="200" fill="#2b2b2b"/>` +
    `<rect x="${n(W * 0.53 - 14)}" y="${street - 260}" width="38" height="92" rx="6" fill="#1e1e1e"/>` +
    `<circle cx="${n(W * 0.53 + 5)}" cy="${street - 240}" r="11" fill="#e74c3c"/>` +
    `<circle cx="${n(W * 0.53 + 5)}" cy="${street - 214}" r="11" fill="#5a4a1c"/>` +
    `<circle cx="${n(W * 0.53 + 5)}" cy="${street - 188}" r="11" fill="#1d4a2c"/>`;

  return (
    `<defs>` +
    `<linearGradient id="dusk" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#1f2d50"/><stop offset="0.55" stop-color="#7a5d8c"/><stop offset="1" stop-color="#f0a46c"/></linearGradient>` +
    `<radialGradient id="lampGlow"><stop offset="0" stop-color="#fff1b8" stop-opacity="0.7"/><stop offset="1" stop-color="#fff1b8" stop-opacity="0"/></radialGradient>` +
    `<pattern id="bricks" width="40" height="20" patternUnits="userSpaceOnUse"><path d="M0,0.5 H40 M0,10.5 H40 M10,0 V10 M30,10 V20" stroke="#5a2f22" stroke-width="1.5" opacity="0.55" fill="none"/></pattern>` +
    `<pattern id="awningRed" width="28" height="10" patternUnits="userSpaceOnUse"><rect width="14" height="10" fill="#c0392b"/><rect x="14" width="14" height="10" fill="#f5efe6"/></pattern>` +
    `<pattern id="awningGreen" width="28" height="10" patternUnits="userSpaceOnUse"><rect width="14" height="10" fill="#1e8449"/><rect x="14" width="14" height="10" fill="#f5efe6"/></pattern>` +
    `<pattern id="awningBlue" width="28" height="10" patternUnits="userSpaceOnUse"><rect width="14" height="10" fill="#2467a3"/><rect x="14" width="14" height="10" fill="#f5efe6"/></pattern>` +
    textureFilter('asphalt', '0.8', 21, [20, 20, 24], 0.5) +
    textureFilter('plaster', '0.05', 22, [60, 50, 40], 0.25) +
    textureFilter('grain', '0.9', 23, [128, 128, 128], 0.12) +
    `</defs>` +
    `<rect width="${n(W)}" height="${H}" fill="url(#dusk)"/>` +
    skyline +
    buildings +
    `<g fill="#000" filter="url(#plaster)">${outlines}</g>` +
    lamps + trafficLight +
    `<rect y="${street}" width="${n(W)}" height="22" fill="#a9a39a"/>` +
    `<rect y="${street + 22}" width="${n(W)}" height="${H - street - 22}" fill="#3a3a40"/>` +
    `<rect y="${street + 22}" width="${n(W)}" height="${H - street - 22}" fill="#000" filter="url(#asphalt)"/>` +
    crosswalk + dashes + cars +
    `<rect width="${n(W)}" height="${H}" fill="#000" filter="url(#grain)"/>`
  );
}
