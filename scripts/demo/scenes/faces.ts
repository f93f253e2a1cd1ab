import { n } from './svg.js';

/** The seven piiface emotions, in the order of the SPEC radios (index = position, as used in training `type`). */
export const EMOTIONS = ['anger', 'disgust', 'fear', 'happiness', 'neutral', 'sadness', 'surprise'] as const;
export type Emotion = (typeof EMOTIONS)[number];

interface Person {
  skin: string;
  skinShade: string;
  hair: string;
  iris: string;
  shirt: string;
  hairStyle: 'long' | 'short' | 'curly' | 'bun';
  glasses: boolean;
}

/** Cartoon people: different skin tones, hair and clothes so the face set is not one face seven times. */
export const PEOPLE: Record<string, Person> = {
  ada: { skin: '#f1c9a5', skinShade: '#d9a57f', hair: '#4a2f1d', iris: '#3f7a4a', shirt: '#2e8b57', hairStyle: 'long', glasses: false },
  ben: { skin: '#a86b47', skinShade: '#8a5234', hair: '#1c1410', iris: '#3b2416', shirt: '#2f5fa7', hairStyle: 'short', glasses: false },
  cleo: { skin: '#6e4630', skinShade: '#553222', hair: '#120c09', iris: '#2a1a10', shirt: '#d2612c', hairStyle: 'curly', glasses: false },
  dan: { skin: '#f6d8c4', skinShade: '#e0b49b', hair: '#b5542a', iris: '#4d7bb0', shirt: '#7b4fa0', hairStyle: 'bun', glasses: true },
};

interface Expression {
  /** Brow ends relative to neutral (negative = up): inner and outer ends. */
  browInner: number;
  browOuter: number;
  /** Eye opening factor (1 neutral). */
  eyeOpen: number;
  pupil: number;
  /** Lower-lid raise (smile squint) and upper-lid droop (sadness/anger), 0..1. */
  lowerLid: number;
  upperLid: number;
  mouth: string;
  extras: string;
  tint: string;
}

const MOUTH = {
  bigSmile: `<path d="M245,372 Q300,448 355,372 Q300,392 245,372 Z" fill="#7a1f24"/><path d="M256,378 Q300,392 344,378 L340,392 Q300,402 260,392 Z" fill="#ffffff"/>`,
  frown: `<path d="M258,402 Q300,368 342,402" stroke="#7a2a2a" stroke-width="9" fill="none" stroke-linecap="round"/>`,
  flat: `<path d="M266,388 Q300,392 334,388" stroke="#7a2a2a" stroke-width="8" fill="none" stroke-linecap="round"/>`,
  roundO: `<ellipse cx="300" cy="398" rx="24" ry="34" fill="#5a1418"/><ellipse cx="300" cy="416" rx="14" ry="10" fill="#c94b55"/>`,
  grimace: `<rect x="252" y="372" width="96" height="38" rx="16" fill="#5a1418"/><rect x="258" y="376" width="84" height="12" fill="#ffffff"/><rect x="260" y="396" width="80" height="10" fill="#ffffff"/>`,
  clenched: `<path d="M258,398 Q300,372 342,398 L336,408 Q300,390 264,408 Z" fill="#5a1418"/><path d="M268,394 Q300,381 332,394" stroke="#ffffff" stroke-width="6" fill="none"/>`,
  sneer: `<path d="M262,398 Q282,382 300,390 Q322,368 344,380" stroke="#7a2a2a" stroke-width="9" fill="none" stroke-linecap="round"/><path d="M306,384 Q322,374 338,380 L334,388 Q320,384 308,390 Z" fill="#ffffff"/>`,
} as const;

const EXPRESSIONS: Record<Emotion, Expression> = {
  anger: { browInner: 22, browOuter: -8, eyeOpen: 0.8, pupil: 7, lowerLid: 0.15, upperLid: 0.45, mouth: MOUTH.clenched, tint: '#ff2a00', extras: `<path d="M282,212 l8,14 M318,212 l-8,14" stroke="#00000055" stroke-width="3"/>` },
  disgust: { browInner: 14, browOuter: 4, eyeOpen: 0.6, pupil: 7, lowerLid: 0.45, upperLid: 0.2, mouth: MOUTH.sneer, tint: '#6a8f00', extras: `<path d="M276,300 q10,-6 18,0 M306,300 q10,-6 18,0 M280,312 q8,-4 14,0" stroke="#00000055" stroke-width="3" fill="none"/>` },
  fear: { browInner: -26, browOuter: -8, eyeOpen: 1.45, pupil: 4, lowerLid: 0, upperLid: 0, mouth: MOUTH.grimace, tint: '#4a6aff', extras: `<path d="M420,170 q14,26 0,36 q-14,-10 0,-36 Z" fill="#bfe3ff" stroke="#7fb3d9" stroke-width="2"/>` },
  happiness: { browInner: -8, browOuter: -10, eyeOpen: 0.9, pupil: 7, lowerLid: 0.5, upperLid: 0, mouth: MOUTH.bigSmile, tint: '#ff9a8a', extras: `<ellipse cx="222" cy="318" rx="28" ry="14" fill="#ff7a7a" opacity="0.35"/><ellipse cx="378" cy="318" rx="28" ry="14" fill="#ff7a7a" opacity="0.35"/>` },
  neutral: { browInner: 0, browOuter: 0, eyeOpen: 1, pupil: 7, lowerLid: 0, upperLid: 0.1, mouth: MOUTH.flat, tint: '#000000', extras: '' },
  sadness: { browInner: -22, browOuter: 12, eyeOpen: 0.85, pupil: 7, lowerLid: 0, upperLid: 0.4, mouth: MOUTH.frown, tint: '#3050c0', extras: `<path d="M372,276 q-8,26 0,36 q8,-10 0,-36 Z" fill="#9fd0ff" stroke="#5e9fd6" stroke-width="2"/>` },
  surprise: { browInner: -30, browOuter: -26, eyeOpen: 1.5, pupil: 6, lowerLid: 0, upperLid: 0, mouth: MOUTH.roundO, tint: '#ffd400', extras: `<path d="M250,160 q50,-12 100,0" stroke="#00000040" stroke-width="3" fill="none"/>` },
};

function hair(person: Person, front: boolean): string {
  const c = person.hair;
  switch (person.hairStyle) {
    case 'long':
      return front
        ? `<path d="M150,250 Q150,90 300,86 Q450,90 450,250 Q430,140 300,130 Q195,134 170,230 Z" fill="${c}"/>`
        : `<path d="M132,260 Q120,80 300,70 Q480,80 468,260 L480,520 L120,520 Z" fill="${c}"/>`;
    case 'short':
      return front ? `<path d="M152,240 Q150,96 300,92 Q450,96 448,240 Q440,128 300,122 Q160,128 152,240 Z" fill="${c}"/>` : '';
    case 'curly': {
      const curls = Array.from({ length: 15 }, (_, i) => {
        const a = Math.PI * (1.05 + (i / 14) * 0.9);
        return `<circle cx="${n(300 + Math.cos(a) * 170)}" cy="${n(230 + Math.sin(a) * 170)}" r="46" fill="${c}"/>`;
      }).join('');
      return front ? '' : `<g>${curls}<ellipse cx="300" cy="170" rx="175" ry="120" fill="${c}"/></g>`;
    }
    case 'bun':
      return front
        ? `<path d="M152,235 Q160,100 300,96 Q440,100 448,235 Q420,138 330,130 Q250,142 152,235 Z" fill="${c}"/>`
        : `<circle cx="300" cy="70" r="58" fill="${c}"/>`;
  }
}

function eye(cx: number, e: Expression, person: Person, mirror: 1 | -1): string {
  const ry = 18 * e.eyeOpen;
  const lidTop = 255 - ry - 4;
  const upper = e.upperLid > 0
    ? `<path d="M${cx - 36},${n(lidTop)} L${cx + 36},${n(lidTop)} L${cx + 36 * mirror},${n(lidTop + ry * 2 * e.upperLid + 6)} L${cx - 36 * mirror},${n(lidTop + ry * 2 * e.upperLid * 0.4)} Z" fill="${person.skin}"/>`
    : '';
  const lower = e.lowerLid > 0
    ? `<path d="M${cx - 36},${n(255 + ry + 6)} Q${cx},${n(255 + ry - ry * 2 * e.lowerLid)} ${cx + 36},${n(255 + ry + 6)} Z" fill="${person.skin}"/>`
    : '';
  return (
    `<ellipse cx="${cx}" cy="255" rx="30" ry="${n(ry)}" fill="#ffffff" stroke="#3a2a20" stroke-width="3"/>` +
    `<circle cx="${cx}" cy="256" r="${n(Math.min(14, ry))}" fill="${person.iris}"/>` +
    `<circle cx="${cx}" cy="256" r="${e.pupil}" fill="#0b0b0b"/><circle cx="${cx + 5}" cy="250" r="3.5" fill="#ffffff"/>` +
    upper + lower
  );
}

function brow(innerX: number, outerX: number, e: Expression, color: string): string {
  const innerY = 205 + e.browInner;
  const outerY = 205 + e.browOuter;
  const midY = Math.min(innerY, outerY) - 8;
  return `<path d="M${innerX},${n(innerY)} Q${(innerX + outerX) / 2},${n(midY)} ${outerX},${n(outerY)}" stroke="${color}" stroke-width="11" fill="none" stroke-linecap="round"/>`;
}

/** A cartoon head-and-shoulders portrait of `personName` expressing `emotion`, in a 600x600 viewBox. */
export function faceSvg(personName: string, emotion: Emotion): string {
  const person = PEOPLE[personName];
  if (!person) throw new Error(`unknown face person "${personName}" (known: ${Object.keys(PEOPLE).join(', ')})`);
  const e = EXPRESSIONS[emotion];
  const glasses = person.glasses
    ? `<g fill="none" stroke="#222" stroke-width="6"><circle cx="240" cy="255" r="42"/><circle cx="360" cy="255" r="42"/><path d="M282,252 Q300,240 318,252 M198,250 L152,240 M402,250 L448,240"/></g>`
    : '';
  return (
    `<defs>` +
    `<radialGradient id="bg" cx="0.5" cy="0.4" r="0.8"><stop offset="0" stop-color="#eef1f5"/><stop offset="1" stop-color="#9aa6b6"/></radialGradient>` +
    `<radialGradient id="faceShade" cx="0.45" cy="0.4" r="0.7"><stop offset="0.6" stop-color="${person.skin}"/><stop offset="1" stop-color="${person.skinShade}"/></radialGradient>` +
    `</defs>` +
    `<rect width="600" height="600" fill="url(#bg)"/>` +
    hair(person, false) +
    `<path d="M110,600 Q120,480 230,455 L370,455 Q480,480 490,600 Z" fill="${person.shirt}"/>` +
    `<rect x="255" y="400" width="90" height="70" fill="${person.skinShade}"/>` +
    `<ellipse cx="152" cy="280" rx="22" ry="36" fill="${person.skinShade}"/><ellipse cx="448" cy="280" rx="22" ry="36" fill="${person.skinShade}"/>` +
    `<ellipse cx="300" cy="275" rx="150" ry="180" fill="url(#faceShade)"/>` +
    `<ellipse cx="300" cy="275" rx="150" ry="180" fill="${e.tint}" opacity="0.08"/>` +
    eye(240, e, person, -1) + eye(360, e, person, 1) +
    brow(268, 208, e, person.hair) + brow(332, 392, e, person.hair) +
    `<path d="M300,275 Q290,320 284,330 Q300,340 316,330" stroke="${person.skinShade}" stroke-width="5" fill="none" stroke-linecap="round"/>` +
    e.mouth + e.extras + glasses +
    hair(person, true)
  );
}
