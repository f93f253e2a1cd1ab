import { between, FONT, n, pick, points, SCENE_HEIGHT as H, seededRandom, textureFilter } from './svg.js';

/**
 * A lake landscape: sky, sun, clouds, mountain ridges with their reflection, a cabin with plank walls,
 * a fence, pines, flowers and a trail sign with small text. Smooth gradients show banding and blocking;
 * planks, fence, flowers and text are the fine detail that blur and noise destroy first.
 */
export function landscapeSvg(width: number): string {
  const random = seededRandom(1701);
  const W = width;
  const horizon = 520;

  // Ridges are sums of sines plus jitter: natural-looking peaks at any width.
  const ridge = (baseY: number, amplitude: number, step: number): Array<[number, number]> => {
    const phases = [between(random, 0, 6), between(random, 0, 6), between(random, 0, 6)];
    const coords: Array<[number, number]> = [[0, horizon]];
    for (let x = 0; x <= W + step; x += step) {
      const wave = 0.55 * Math.sin(x / 190 + phases[0]!) + 0.3 * Math.sin(x / 71 + phases[1]!) + 0.15 * Math.sin(x / 29 + phases[2]!);
      coords.push([x, Math.min(horizon - 5, baseY - amplitude * wave + between(random, -4, 4))]);
    }
    coords.push([W, horizon]);
    return coords;
  };
  const far = ridge(370, 95, 14);
  const mid = ridge(465, 30, 18);

  // A snow cap on every peak (local minimum of y) high enough to hold snow.
  const snowCaps = far
    .filter(([, y], i) => i > 0 && i < far.length - 1 && y < 330 && y <= far[i - 1]![1] && y <= far[i + 1]![1])
    .map(([x, y]) => `<polygon points="${points([[x, y], [x - 30, y + 34], [x - 12, y + 27], [x + 2, y + 38], [x + 16, y + 28], [x + 30, y + 34]])}" fill="#f4f6fa" opacity="0.92"/>`)
    .join('');

  const clouds = Array.from({ length: Math.round(W / 320) }, (_, i) => {
    const cx = (i + 0.5) * 320 + between(random, -80, 80);
    const cy = between(random, 90, 230);
    const puffs = Array.from({ length: 5 }, () =>
      `<ellipse cx="${n(cx + between(random, -70, 70))}" cy="${n(cy + between(random, -15, 15))}" rx="${n(between(random, 40, 80))}" ry="${n(between(random, 18, 32))}"/>`,
    ).join('');
    return `<g fill="#ffffff" opacity="0.85" filter="url(#soft)">${puffs}</g>`;
  }).join('');

  const ripples = Array.from({ length: Math.round(W / 12) }, () => {
    const x = between(random, 0, W);
    const y = between(random, horizon + 8, 650);
    const len = between(random, 15, 60);
    return `<line x1="${n(x)}" y1="${n(y)}" x2="${n(x + len)}" y2="${n(y)}" stroke="#dce9f2" stroke-width="${n(between(random, 1, 2.5))}" opacity="0.5"/>`;
  }).join('');

  const pine = (x: number, baseY: number, size: number): string => {
    const green = pick(random, ['#1f4d2b', '#24582f', '#2d6236', '#183f24']);
    const tiers = [0, 1, 2, 3]
      .map((t) => {
        const top = baseY - size * (1 - t * 0.2);
        const half = size * (0.18 + t * 0.07);
        const bottom = top + size * 0.42;
        return `<polygon points="${points([[x, top], [x - half, bottom], [x + half, bottom]])}" fill="${green}"/>`;
      })
      .join('');
    return `<rect x="${n(x - size * 0.04)}" y="${n(baseY - size * 0.12)}" width="${n(size * 0.08)}" height="${n(size * 0.14)}" fill="#5b3a22"/>${tiers}`;
  };
  const hillPines = Array.from({ length: Math.round(W / 40) }, () => pine(between(random, 0, W), between(random, 480, 515), between(random, 40, 80))).join('');
  const meadowPines = Array.from({ length: Math.round(W / 260) }, () => pine(between(random, W * 0.5, W), between(random, 640, 700), between(random, 140, 220))).join('');

  const cabinX = W * 0.18;
  const planks = Array.from({ length: 16 }, (_, i) => `<line x1="${n(cabinX)}" y1="${n(585 + i * 7)}" x2="${n(cabinX + 190)}" y2="${n(585 + i * 7)}" stroke="#4a2c17" stroke-width="1.2"/>`).join('');
  const windowAt = (x: number) =>
    `<rect x="${n(x)}" y="605" width="40" height="40" fill="#f6d98b" stroke="#3b2312" stroke-width="4"/>` +
    `<line x1="${n(x + 20)}" y1="605" x2="${n(x + 20)}" y2="645" stroke="#3b2312" stroke-width="3"/>` +
    `<line x1="${n(x)}" y1="625" x2="${n(x + 40)}" y2="625" stroke="#3b2312" stroke-width="3"/>`;
  const cabin =
    `<rect x="${n(cabinX + 140)}" y="510" width="22" height="60" fill="#6d6d6d"/>` +
    `<g fill="#cfd3d6" opacity="0.5" filter="url(#soft)"><circle cx="${n(cabinX + 152)}" cy="490" r="14"/><circle cx="${n(cabinX + 165)}" cy="462" r="18"/><circle cx="${n(cabinX + 185)}" cy="430" r="22"/></g>` +
    `<rect x="${n(cabinX)}" y="580" width="190" height="115" fill="#8a5a34"/>${planks}` +
    `<polygon points="${points([[cabinX - 20, 585], [cabinX + 95, 520], [cabinX + 210, 585]])}" fill="#8c2f25"/>` +
    windowAt(cabinX + 20) + windowAt(cabinX + 130) +
    `<rect x="${n(cabinX + 78)}" y="625" width="36" height="70" fill="#4a2c17"/><circle cx="${n(cabinX + 106)}" cy="662" r="3" fill="#d9b44a"/>`;

  const fence = Array.from({ length: Math.round((W * 0.45) / 28) }, (_, i) => {
    const x = 10 + i * 28;
    return `<rect x="${x}" y="742" width="7" height="52" fill="#e9e1cf"/>`;
  }).join('') + `<rect x="0" y="752" width="${n(W * 0.45)}" height="5" fill="#e9e1cf"/><rect x="0" y="774" width="${n(W * 0.45)}" height="5" fill="#e9e1cf"/>`;

  const flowers = Array.from({ length: Math.round(W / 4) }, () => {
    const color = pick(random, ['#e84a5f', '#f7d046', '#ffffff', '#b05cd6', '#f29b38']);
    return `<circle cx="${n(between(random, 0, W))}" cy="${n(between(random, 690, 900))}" r="${n(between(random, 2, 5))}" fill="${color}"/>`;
  }).join('');

  const birds = Array.from({ length: 6 }, () => {
    const x = between(random, W * 0.3, W * 0.8);
    const y = between(random, 120, 260);
    return `<path d="M${n(x - 12)},${n(y - 5)} Q${n(x - 5)},${n(y - 9)} ${n(x)},${n(y)} Q${n(x + 5)},${n(y - 9)} ${n(x + 12)},${n(y - 5)}" stroke="#2b2b35" stroke-width="2.2" fill="none"/>`;
  }).join('');

  const signX = W * 0.42;
  const sign =
    `<rect x="${n(signX + 68)}" y="700" width="10" height="120" fill="#5b3a22"/>` +
    `<rect x="${n(signX)}" y="640" width="150" height="78" rx="6" fill="#a4703f" stroke="#5b3a22" stroke-width="4"/>` +
    `<text x="${n(signX + 75)}" y="672" font-family="${FONT}" font-size="22" font-weight="bold" fill="#fbf3df" text-anchor="middle">LAKE VIEW</text>` +
    `<text x="${n(signX + 75)}" y="694" font-family="${FONT}" font-size="13" fill="#fbf3df" text-anchor="middle">Trail 14 · 2.4 km</text>` +
    `<text x="${n(signX + 75)}" y="710" font-family="${FONT}" font-size="9" fill="#f1e4c4" text-anchor="middle">open May to October, 8:00–19:00</text>`;

  return (
    `<defs>` +
    `<linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#3f73b8"/><stop offset="0.6" stop-color="#a4c8e6"/><stop offset="1" stop-color="#f3d9b1"/></linearGradient>` +
    `<radialGradient id="sun"><stop offset="0" stop-color="#fffbe6"/><stop offset="0.35" stop-color="#ffe9a3"/><stop offset="1" stop-color="#ffe9a3" stop-opacity="0"/></radialGradient>` +
    `<linearGradient id="far" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#6f7fa3"/><stop offset="1" stop-color="#aab6cc"/></linearGradient>` +
    `<linearGradient id="mid" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#3f6a45"/><stop offset="1" stop-color="#2c4d33"/></linearGradient>` +
    `<linearGradient id="lake" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#7fa6c4"/><stop offset="1" stop-color="#2f5575"/></linearGradient>` +
    `<linearGradient id="meadow" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#8dbb4f"/><stop offset="1" stop-color="#44702a"/></linearGradient>` +
    `<filter id="soft" x="-20%" y="-20%" width="140%" height="140%"><feGaussianBlur stdDeviation="7"/></filter>` +
    textureFilter('grass', '0.25 0.012', 3, [30, 70, 10], 0.55) +
    textureFilter('rock', '0.03 0.05', 5, [40, 45, 60], 0.35) +
    textureFilter('grain', '0.9', 9, [128, 128, 128], 0.12) +
    `</defs>` +
    `<rect width="${n(W)}" height="${H}" fill="url(#sky)"/>` +
    `<circle cx="${n(W * 0.72)}" cy="230" r="150" fill="url(#sun)"/><circle cx="${n(W * 0.72)}" cy="230" r="46" fill="#fff8d8"/>` +
    clouds + birds +
    `<polygon points="${points(far)}" fill="url(#far)"/><polygon points="${points(far)}" fill="#000" filter="url(#rock)"/>${snowCaps}` +
    `<rect y="${horizon}" width="${n(W)}" height="${H - horizon}" fill="url(#lake)"/>` +
    `<g transform="translate(0 ${horizon * 2}) scale(1 -1)" opacity="0.35"><polygon points="${points(far)}" fill="#55678a"/></g>` +
    ripples +
    `<polygon points="${points(mid)}" fill="url(#mid)"/>${hillPines}` +
    `<path d="M0,610 C${n(W * 0.3)},570 ${n(W * 0.6)},650 ${n(W)},600 L${n(W)},${H} L0,${H} Z" fill="url(#meadow)"/>` +
    `<path d="M0,610 C${n(W * 0.3)},570 ${n(W * 0.6)},650 ${n(W)},600 L${n(W)},${H} L0,${H} Z" fill="#000" filter="url(#grass)"/>` +
    `<path d="M${n(W * 0.26)},695 C${n(W * 0.3)},760 ${n(W * 0.22)},820 ${n(W * 0.34)},900 L${n(W * 0.46)},900 C${n(W * 0.32)},820 ${n(W * 0.36)},760 ${n(W * 0.28)},695 Z" fill="#c9ad7d"/>` +
    cabin + fence + meadowPines + sign + flowers +
    `<rect width="${n(W)}" height="${H}" fill="#000" filter="url(#grain)"/>`
  );
}
