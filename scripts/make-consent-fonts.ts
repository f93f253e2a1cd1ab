/**
 * Builds the fonts of the consent PDF (src/server/fonts/, committed): subsets of Noto Sans and Noto Sans CJK that
 * cover the names participants type, so the signed copy reads as entered (issue 14).
 *
 *   npx tsx scripts/make-consent-fonts.ts        # needs the npm registry; about 70 MB of tarballs, a minute
 *
 * Sources: the OFL-1.1 font packages below, fetched with `npm pack` into a temporary folder (not dependencies:
 * the server never needs the full fonts). Cut with harfbuzz's hb-subset (`subset-font`, a dev dependency).
 *
 * Coverage (see src/server/fonts/README.md, which this script writes):
 * - GlimSans-Regular / -Bold (from Noto Sans): Latin with Latin-1, Extended-A/B, IPA, Extended Additional
 *   (Vietnamese), Extended-C/D/E; combining diacritics; Greek (+ Extended); Cyrillic (+ Supplement, Extended-A/B/C);
 *   general punctuation, currency, letterlike symbols.
 * - GlimSansCJK-Regular (from Noto Sans CJK SC): the Han characters of GB 2312 (Simplified Chinese), Big5 level 1
 *   (the common Traditional Chinese set), JIS X 0208 (Japanese kanji, which holds the Jōyō and nearly all Jinmeiyō
 *   kanji) and KS X 1001 (Korean hanja), CJK symbols and punctuation. Glyph shapes are the Simplified Chinese ones.
 * - GlimSansJP-Regular (from Noto Sans CJK JP): hiragana, katakana (+ phonetic extensions, half-width), full-width
 *   forms.
 * - GlimSansKR-Regular (from Noto Sans CJK KR): the 2,350 Hangul syllables of KS X 1001 (the everyday set, which
 *   modern Korean names use) and the compatibility jamo.
 *
 * The OFL reserves the name "Noto Sans" for the original fonts, and a subset is a Modified Version: the family and
 * PostScript names are renamed "Noto" → "Glim" (same length, patched in place in the `name` table and the CFF
 * name strings); copyright, trademark and licence entries are kept, and OFL.txt ships beside the files.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import subsetFont from 'subset-font';

const OUT = join(import.meta.dirname, '..', 'src', 'server', 'fonts');

const PACKAGES = {
  latin: '@embedpdf/fonts-latin@1.0.0',
  sc: '@embedpdf/fonts-sc@1.0.0',
  jp: '@embedpdf/fonts-jp@1.0.0',
  kr: '@embedpdf/fonts-kr@1.0.0',
} as const;

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Every character of a double-byte legacy character set, read back through the WHATWG decoder of its encoding. */
function legacySet(encoding: string, lead: [number, number], trail: [number, number]): number[] {
  const decoder = new TextDecoder(encoding, { fatal: true });
  const out = new Set<number>();
  for (let a = lead[0]; a <= lead[1]; a++) {
    for (let b = trail[0]; b <= trail[1]; b++) {
      let text: string;
      try {
        text = decoder.decode(new Uint8Array([a, b]));
      } catch {
        continue;
      }
      for (const ch of text) if (ch.codePointAt(0)! > 0x7f && ch !== '\uFFFD') out.add(ch.codePointAt(0)!);
    }
  }
  return [...out];
}

const isHan = (cp: number) => /\p{Script=Han}/u.test(String.fromCodePoint(cp));
const gb2312 = legacySet('gbk', [0xa1, 0xf7], [0xa1, 0xfe]); // GB 2312 = the EUC-CN rows of GBK
const big5Level1 = legacySet('big5', [0xa4, 0xc6], [0x40, 0xfe]); // 0xA440–0xC67E: the 5,401 frequent hanzi
const jis0208 = legacySet('euc-jp', [0xa1, 0xfe], [0xa1, 0xfe]);
const ksx1001 = legacySet('euc-kr', [0xa1, 0xfe], [0xa1, 0xfe]);

const HAN = [...new Set([...gb2312, ...big5Level1, ...jis0208, ...ksx1001].filter(isHan))].sort((a, b) => a - b);
const CJK_PUNCTUATION = range(0x3000, 0x303f); // CJK symbols and punctuation (、。「」〇 ideographic space)
const KANA = [
  ...range(0x3040, 0x309f), // hiragana
  ...range(0x30a0, 0x30ff), // katakana
  ...range(0x31f0, 0x31ff), // katakana phonetic extensions
  ...range(0xff00, 0xffef), // half-width and full-width forms
];
const HANGUL = [...ksx1001.filter((cp) => cp >= 0xac00 && cp <= 0xd7a3), ...range(0x3130, 0x318f)];
const LATIN_GREEK_CYRILLIC = [
  ...range(0x0020, 0x007e),
  ...range(0x00a0, 0x024f), // Latin-1, Extended-A, Extended-B
  ...range(0x0250, 0x036f), // IPA, spacing modifiers, combining diacritics
  ...range(0x0370, 0x03ff), // Greek
  ...range(0x0400, 0x052f), // Cyrillic + Supplement
  ...range(0x1c80, 0x1c8f), // Cyrillic Extended-C
  ...range(0x1e00, 0x1fff), // Latin Extended Additional, Greek Extended
  ...range(0x2000, 0x206f), // general punctuation
  ...range(0x20a0, 0x20cf), // currency
  ...range(0x2100, 0x214f), // letterlike symbols (№, ℃, ™)
  ...range(0x2c60, 0x2c7f), // Latin Extended-C
  ...range(0x2de0, 0x2dff), // Cyrillic Extended-A
  ...range(0xa640, 0xa69f), // Cyrillic Extended-B
  ...range(0xa720, 0xa7ff), // Latin Extended-D
  ...range(0xab30, 0xab6f), // Latin Extended-E
  ...range(0xfb00, 0xfb06), // Latin ligatures
  0xfffd,
];

interface Output {
  file: string;
  source: keyof typeof PACKAGES;
  sourceFile: string;
  codePoints: number[];
  covers: string;
}

const OUTPUTS: Output[] = [
  { file: 'GlimSans-Regular.ttf', source: 'latin', sourceFile: 'NotoSans-Regular.ttf', codePoints: LATIN_GREEK_CYRILLIC, covers: 'Latin (Latin-1, Extended-A/B/C/D/E, Extended Additional, IPA), combining diacritics, Greek, Cyrillic (+ Supplement, Extended-A/B/C), punctuation, currency' },
  { file: 'GlimSans-Bold.ttf', source: 'latin', sourceFile: 'NotoSans-Bold.ttf', codePoints: LATIN_GREEK_CYRILLIC, covers: 'the same, bold (titles and labels)' },
  {
    file: 'GlimSansCJK-Regular.otf',
    source: 'sc',
    sourceFile: 'NotoSansHans-Regular.otf',
    codePoints: [...HAN, ...CJK_PUNCTUATION],
    covers: `${HAN.length} Han characters: GB 2312 ∪ Big5 level 1 ∪ JIS X 0208 ∪ KS X 1001 hanja (Simplified Chinese glyph shapes); CJK symbols and punctuation`,
  },
  // Kana in a file of their own: hb-subset fails on the SC font once they join the 11,000 Han characters, and the
  // Japanese font draws them as Japanese readers expect.
  { file: 'GlimSansJP-Regular.otf', source: 'jp', sourceFile: 'NotoSansJP-Regular.otf', codePoints: [...KANA, ...CJK_PUNCTUATION], covers: 'hiragana, katakana (+ phonetic extensions), half-width and full-width forms, CJK punctuation' },
  { file: 'GlimSansKR-Regular.otf', source: 'kr', sourceFile: 'NotoSansKR-Regular.otf', codePoints: HANGUL, covers: `the ${HANGUL.length - 96} Hangul syllables of KS X 1001 and the compatibility jamo` },
];

// --- renaming "Noto" → "Glim" in place (same length: no offset moves) ------------------------------------------

interface Table {
  tag: string;
  entry: number; // offset of its record in the table directory
  offset: number;
  length: number;
}

function tables(font: Buffer): Map<string, Table> {
  const count = font.readUInt16BE(4);
  const out = new Map<string, Table>();
  for (let i = 0; i < count; i++) {
    const entry = 12 + 16 * i;
    out.set(font.toString('latin1', entry, entry + 4), { tag: font.toString('latin1', entry, entry + 4), entry, offset: font.readUInt32BE(entry + 8), length: font.readUInt32BE(entry + 12) });
  }
  return out;
}

function checksum(font: Buffer, offset: number, length: number): number {
  let sum = 0;
  for (let i = 0; i < length; i += 4) {
    let word = 0;
    for (let k = 0; k < 4; k++) word = (word << 8) | (i + k < length ? font[offset + i + k]! : 0);
    sum = (sum + (word >>> 0)) >>> 0;
  }
  return sum;
}

/** Names that the OFL's Reserved Font Name rule covers: family, unique id, full, PostScript, typographic names. */
const RENAMED_IDS = new Set([1, 3, 4, 6, 16, 17, 18, 20, 21, 22, 25]);

function renameNameTable(font: Buffer, name: Table): void {
  const count = font.readUInt16BE(name.offset + 2);
  const strings = name.offset + font.readUInt16BE(name.offset + 4);
  for (let i = 0; i < count; i++) {
    const record = name.offset + 6 + 12 * i;
    const platform = font.readUInt16BE(record);
    const nameId = font.readUInt16BE(record + 6);
    if (!RENAMED_IDS.has(nameId)) continue;
    const start = strings + font.readUInt16BE(record + 10);
    const bytes = font.subarray(start, start + font.readUInt16BE(record + 8));
    const wide = platform === 0 || platform === 3; // UTF-16BE; Macintosh names are one byte per character
    const encode = (s: string) => (wide ? Buffer.from(s, 'utf16le').swap16() : Buffer.from(s, 'latin1'));
    const from = encode('Noto');
    const to = encode('Glim');
    for (let at = bytes.indexOf(from); at >= 0; at = bytes.indexOf(from, at + from.length)) to.copy(bytes, at);
  }
}

/** A CFF INDEX at `at`: the [start, end) of each element, and where the INDEX ends. */
function cffIndex(font: Buffer, at: number): { items: Array<[number, number]>; end: number } {
  const count = font.readUInt16BE(at);
  if (count === 0) return { items: [], end: at + 2 };
  const offSize = font[at + 2]!;
  const offset = (i: number) => font.readUIntBE(at + 3 + i * offSize, offSize);
  const data = at + 3 + (count + 1) * offSize - 1;
  const items: Array<[number, number]> = [];
  for (let i = 0; i < count; i++) items.push([data + offset(i), data + offset(i + 1)]);
  return { items, end: data + offset(count) };
}

/** The font name (Name INDEX) and the name strings of the String INDEX (FullName, FamilyName, CID FontNames). */
function renameCff(font: Buffer, cff: Table): void {
  const names = cffIndex(font, cff.offset + font[cff.offset + 2]!);
  const topDicts = cffIndex(font, names.end);
  const strings = cffIndex(font, topDicts.end);
  for (const [start, end] of [...names.items, ...strings.items]) {
    const text = font.toString('latin1', start, end);
    if (text.startsWith('Noto')) font.write(text.replace(/Noto/g, 'Glim'), start, 'latin1');
  }
}

function rename(font: Buffer): Buffer {
  const all = tables(font);
  renameNameTable(font, all.get('name')!);
  if (all.has('CFF ')) renameCff(font, all.get('CFF ')!);
  for (const tag of ['name', 'CFF ']) {
    const t = all.get(tag);
    if (t) font.writeUInt32BE(checksum(font, t.offset, t.length), t.entry + 4);
  }
  const head = all.get('head')!;
  font.writeUInt32BE(0, head.offset + 8); // checkSumAdjustment counts as 0 in every checksum
  font.writeUInt32BE(checksum(font, head.offset, head.length), head.entry + 4);
  font.writeUInt32BE((0xb1b0afba - checksum(font, 0, font.length)) >>> 0, head.offset + 8);
  return font;
}

// --- main -----------------------------------------------------------------------------------------------------

const work = mkdtempSync(join(tmpdir(), 'glimpse-fonts-'));
try {
  const unpacked: Record<string, string> = {};
  for (const [key, spec] of Object.entries(PACKAGES)) {
    const tarball = execFileSync('npm', ['pack', spec, '--silent'], { cwd: work, encoding: 'utf8' }).trim().split('\n').pop()!;
    const dir = join(work, key);
    execFileSync('mkdir', ['-p', dir]);
    execFileSync('tar', ['xzf', join(work, tarball), '-C', dir]);
    unpacked[key] = join(dir, 'package');
    console.log(`fetched ${spec}`);
  }
  const rows: string[] = [];
  for (const output of OUTPUTS) {
    const source = readFileSync(join(unpacked[output.source]!, 'fonts', output.sourceFile));
    // No layout closure: vertical forms and alternates are not reachable from horizontal names.
    const subset = Buffer.from(await subsetFont(source, String.fromCodePoint(...output.codePoints), { targetFormat: 'sfnt', noLayoutClosure: true }));
    const font = rename(subset);
    writeFileSync(join(OUT, output.file), font);
    const sha = createHash('sha256').update(font).digest('hex');
    rows.push(`| \`${output.file}\` | ${PACKAGES[output.source]} \`${output.sourceFile}\` | ${output.covers} | ${(font.length / 1024).toFixed(0)} KiB | \`${sha.slice(0, 16)}…\` |`);
    console.log(`${output.file}: ${font.length} bytes`);
  }
  const licence = readFileSync(join(unpacked.latin!, 'LICENSE'), 'utf8');
  writeFileSync(
    join(OUT, 'OFL.txt'),
    `The fonts of this folder are subsets of Noto Sans (Copyright 2022 The Noto Project Authors,\n` +
      `https://github.com/notofonts/latin-greek-cyrillic) and Noto Sans CJK (Copyright 2014-2021 Adobe, with Reserved\n` +
      `Font Name 'Source'; Copyright 2014-2021 Google Inc, with Reserved Font Name 'Noto Sans'), renamed "Glim Sans" as\n` +
      `the Reserved Font Name rule asks of Modified Versions, and licensed under the SIL Open Font License 1.1:\n\n${licence}`,
  );
  writeFileSync(
    join(OUT, 'README.md'),
    `# Fonts of the consent PDF\n\n` +
      `Written by \`scripts/make-consent-fonts.ts\` (do not edit by hand; run it again to change the coverage). Subsets of\n` +
      `Noto Sans and Noto Sans CJK under the SIL Open Font License 1.1 (\`OFL.txt\`), renamed "Glim Sans" (the OFL reserves\n` +
      `"Noto Sans" for the original fonts). \`src/server/consent-pdf.ts\` draws each character with the first of\n` +
      `GlimSans, GlimSansCJK, GlimSansJP, GlimSansKR that has it; pdfkit embeds only the glyphs a PDF uses.\n\n` +
      `| File | From | Covers | Size | SHA-256 |\n|---|---|---|---:|---|\n${rows.join('\n')}\n\n` +
      `Not covered: Han characters outside those national sets (rare name characters, CJK Extension B and beyond),\n` +
      `Hangul syllables outside KS X 1001, and scripts other than Latin, Greek, Cyrillic, Chinese, Japanese and Korean\n` +
      `(Arabic, Hebrew, Devanagari, Thai...): such a character is drawn as an empty box (.notdef).\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
