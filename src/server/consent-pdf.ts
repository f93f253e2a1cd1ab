import { readFileSync } from 'node:fs';
import * as fontkit from 'fontkit';
import PDFDocument from 'pdfkit';
import type { ConsentBody } from '../contract/payloads.js';

const two = (n: number) => String(n).padStart(2, '0');
const frenchDate = (isoDay: string) => isoDay.split('-').reverse().join('/');

/** The statements the participant ticked on the French consent form (SPEC §5), as signed. */
const STATEMENTS = [
  'J’ai lu et compris la fiche d’information relative à cette étude.',
  'Je certifie être majeur(e) et ne pas faire l’objet d’une mesure de protection juridique.',
  'J’ai reçu une proposition de participation à cette étude et j’ai pu poser toutes mes questions.',
  'J’ai compris les conditions de ma participation : je peux me retirer à tout moment, sans avoir à me justifier.',
  'J’accepte librement de participer à cette étude.',
  'J’accepte que les données recueillies soient traitées de manière confidentielle à des fins de recherche.',
];

/**
 * The embedded fonts (src/server/fonts/README.md: subsets of Noto Sans and Noto Sans CJK, OFL): a participant's
 * name in Latin, Greek, Cyrillic, Chinese, Japanese or Korean is drawn as typed. Text is drawn by runs, each in the
 * first of these that has its characters.
 */
const FONT_FILES = {
  sans: 'GlimSans-Regular.ttf',
  sansBold: 'GlimSans-Bold.ttf',
  han: 'GlimSansCJK-Regular.otf',
  kana: 'GlimSansJP-Regular.otf',
  hangul: 'GlimSansKR-Regular.otf',
} as const;
type FontName = keyof typeof FONT_FILES;
/** Fallback order for the participant's text (regular weight). */
const TEXT_FONTS: readonly FontName[] = ['sans', 'han', 'kana', 'hangul'];

let loaded: Record<FontName, fontkit.Font> | null = null;
/** Parsed once per process (a few ms; lazy tables), shared by every PDF: pdfkit subsets per document. */
function fonts(): Record<FontName, fontkit.Font> {
  loaded ??= Object.fromEntries(
    Object.entries(FONT_FILES).map(([name, file]) => [name, fontkit.create(readFileSync(new URL(`./fonts/${file}`, import.meta.url)))]),
  ) as Record<FontName, fontkit.Font>;
  return loaded;
}

export interface TextRun {
  font: FontName;
  text: string;
}

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });
/** Spaces, punctuation, digits and symbols: drawn in the font of the text around them when it has them. */
const NEUTRAL = /^[\p{Z}\p{P}\p{N}\p{S}]+$/u;

/**
 * Splits text into runs of one font each: every grapheme (a base and its combining marks together) goes to the first
 * font that has all its code points (neutral characters stay with the current run's font when it has them). A
 * character no font has stays in the current font (drawn as an empty box).
 */
export function fontRuns(text: string, order: readonly FontName[] = TEXT_FONTS): TextRun[] {
  const all = fonts();
  const has = (name: FontName, cluster: string) => [...cluster].every((ch) => all[name].hasGlyphForCodePoint(ch.codePointAt(0)!));
  const runs: TextRun[] = [];
  for (const { segment } of graphemes.segment(text)) {
    const current = runs.at(-1);
    const font =
      current && NEUTRAL.test(segment) && has(current.font, segment)
        ? current.font
        : (order.find((name) => has(name, segment)) ?? order.find((name) => has(name, [...segment][0]!)) ?? current?.font ?? order[0]!);
    if (current?.font === font) current.text += segment;
    else runs.push({ font, text: segment });
  }
  return runs;
}

/** Points: the declaration, statements and fields. */
const BODY_SIZE = 10.5;

/** The characters of `text` that none of the fonts has (drawn as an empty box): what the fonts' coverage misses. */
export function uncoveredCharacters(text: string): string[] {
  const all = fonts();
  return [...new Set([...text].filter((ch) => !TEXT_FONTS.some((name) => all[name].hasGlyphForCodePoint(ch.codePointAt(0)!))))];
}

/**
 * Noto Sans's `ccmp` feature splits some precomposed letters into a base and a mark (ị → i + dot below, ọ → o + dot
 * below): drawn right, but the base glyph is the plain letter's, so the PDF's text (copy, search, screen readers)
 * said "i". Text without combining marks (fields are drawn in NFC, so Vietnamese letters are precomposed) is laid
 * out without `ccmp`, each letter its own glyph; text that still has combining marks keeps it, to place them.
 */
const featuresOf = (text: string): { features?: never } => (/\p{M}/u.test(text) ? {} : { features: { ccmp: false } as never });

/** A paragraph of fixed text and participant text: `[fixed, field, fixed...]`, fields split into font runs. */
type Piece = string | { field: string };

/** A PDF copy of the signed consent form, fields filled in (French text; participants' names in any of the fonts' scripts). */
export function consentPdf(form: ConsentBody): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: 56, font: null as unknown as string, info: { Title: 'Formulaire de consentement', Creator: 'Glimpse' } });
  for (const [name, font] of Object.entries(fonts())) doc.registerFont(name, font as never);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  /**
   * Writes one paragraph (or the rest of a line after `continued` text) run by run. pdfkit puts a run's baseline at
   * its own font's ascent below the line top, and the CJK fonts' ascent is smaller than Noto Sans's: every run is
   * placed on Noto Sans's baseline, so a name mixing scripts sits on one line.
   */
  const paragraph = (pieces: Piece[]) => {
    const runs = pieces.flatMap((p) => (typeof p === 'string' ? fontRuns(p, ['sans']) : fontRuns(p.field.normalize('NFC'))));
    const sans = fonts().sans;
    const baseline = -((sans.ascent / sans.unitsPerEm) * BODY_SIZE);
    runs.forEach((run, i) => doc.font(run.font).text(run.text, { baseline, continued: i < runs.length - 1, ...featuresOf(run.text) }));
  };
  const labelled = (label: string, value: string) => {
    doc.font('sansBold').text(label, { continued: true });
    paragraph([{ field: value }]);
  };

  const signedOn = `${two(form.currentDate.day)}/${two(form.currentDate.month)}/${form.currentDate.year}`;
  doc.font('sansBold').fontSize(16).text('Formulaire de consentement éclairé', { align: 'center' });
  doc.moveDown(0.3).font('sans').fontSize(11).text('Participation à une expérience d’évaluation de la qualité visuelle', { align: 'center' });
  doc.moveDown(1.5).fontSize(BODY_SIZE);
  paragraph([
    `Je soussigné(e) ${form.gender} `,
    { field: `${form.name} ${form.familyName}` },
    `, né(e) le ${frenchDate(form.birthDay)} (pays de naissance : `,
    { field: form.birthCountry },
    '), déclare :',
  ]);
  doc.moveDown(0.5);
  for (const statement of STATEMENTS) doc.font('sans').text(`[x]  ${statement}`, { indent: 12 }).moveDown(0.3);
  doc.moveDown(1);
  labelled('Adresse électronique : ', form.emailAddress);
  labelled('Fait le : ', signedOn);
  labelled('Paraphe : ', form.paraphe);
  doc.moveDown(2).font('sans').fontSize(9).fillColor('#555555');
  doc.text('Ce document est une copie du formulaire signé en ligne. Conservez-le : il atteste de votre consentement.');
  doc.end();
  return done;
}

/**
 * Renders one throwaway form with every script: the first PDF of a process pays for parsing the fonts and warming
 * pdfkit (up to a second and a half on a small server, the event loop blocked). startServer calls this before it
 * listens, so no participant's request pays it.
 */
export async function warmConsentPdf(): Promise<void> {
  await consentPdf({
    emailAddress: 'warm@up.example',
    paraphe: 'WU',
    gender: 'M.',
    name: 'Łukasz Иван 王小明',
    familyName: 'さくら 김민준',
    birthCountry: 'France',
    birthDay: '1990-01-01',
    currentDate: { day: 1, month: 1, year: 2026 },
  });
}
