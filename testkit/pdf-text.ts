import { inflateSync } from 'node:zlib';

/**
 * The text drawn in a pdfkit PDF, as a reader would copy it: one line per baseline (text objects that pdfkit draws
 * on the same line, such as the runs of a name mixing scripts, are joined), each line in drawing order.
 *
 * Glyph codes are turned into text with the font's ToUnicode CMap (embedded fonts: 2-byte Identity-H codes), or
 * with WinAnsi (the standard fonts, 1 byte each). A small reader of what pdfkit writes (classic objects, Flate
 * streams with a direct /Length, hex strings in TJ/Tj), not a general PDF parser.
 */
export function pdfText(pdf: Buffer): string {
  const objects = readObjects(pdf);
  const lines: string[] = [];
  let line = '';
  let lineY: number | null = null;
  for (const page of [...objects.values()].filter((o) => /\/Type\s*\/Page\b/.test(o.dict))) {
    const fonts = pageFonts(page.dict, objects);
    for (const content of refs(page.dict, 'Contents').map((id) => objects.get(id)?.stream).filter((s): s is Buffer => s !== undefined)) {
      let font: Decoder = winAnsi;
      const ops = content.toString('latin1').matchAll(/\/([^\s/[\]<>()]+)\s+[-\d.]+\s+Tf|(-?[\d.]+)\s+(-?[\d.]+)\s+Tm|\[((?:[^\]\\]|\\.)*)\]\s*TJ|<([0-9a-fA-F\s]*)>\s*Tj/g);
      for (const op of ops) {
        if (op[1] !== undefined) font = fonts.get(op[1]) ?? winAnsi;
        else if (op[3] !== undefined) {
          const y = Number(op[3]);
          if (lineY !== null && Math.abs(y - lineY) > 0.01) {
            lines.push(line);
            line = '';
          }
          lineY = y;
        } else {
          const hex = op[4] !== undefined ? [...op[4].matchAll(/<([0-9a-fA-F\s]*)>/g)].map((h) => h[1]).join('') : op[5]!;
          line += font(Buffer.from(hex.replace(/\s+/g, ''), 'hex'));
        }
      }
    }
  }
  if (lineY !== null) lines.push(line);
  return lines.join('\n');
}

type Decoder = (codes: Buffer) => string;
const winAnsiDecoder = new TextDecoder('windows-1252');
const winAnsi: Decoder = (codes) => winAnsiDecoder.decode(codes);

interface PdfObject {
  dict: string;
  stream?: Buffer;
}

/** Every `N 0 obj`: its dictionary text and its stream, inflated (a stream is skipped whole, by its /Length). */
function readObjects(pdf: Buffer): Map<number, PdfObject> {
  const source = pdf.toString('latin1');
  const objects = new Map<number, PdfObject>();
  const header = /(?:^|[\r\n])(\d+) 0 obj\s*/g;
  for (let m = header.exec(source); m; m = header.exec(source)) {
    const start = m.index + m[0].length;
    const end = source.indexOf('endobj', start);
    const streamAt = source.slice(start, end).search(/\bstream\r?\n/);
    if (streamAt < 0) {
      objects.set(Number(m[1]), { dict: source.slice(start, end) });
      continue;
    }
    const dict = source.slice(start, start + streamAt);
    const dataStart = start + streamAt + source.slice(start + streamAt).match(/^stream\r?\n/)![0].length;
    const length = Number(/\/Length\s+(\d+)/.exec(dict)?.[1] ?? 0);
    const raw = pdf.subarray(dataStart, dataStart + length);
    let stream: Buffer = raw;
    if (/\/FlateDecode/.test(dict)) {
      try {
        stream = inflateSync(raw);
      } catch {
        stream = Buffer.alloc(0);
      }
    }
    objects.set(Number(m[1]), { dict, stream });
    header.lastIndex = dataStart + length;
  }
  return objects;
}

/** The object numbers of `/Key n 0 R` or `/Key [n 0 R m 0 R]`. */
function refs(dict: string, key: string): number[] {
  const m = new RegExp(`/${key}\\s*(\\[[^\\]]*\\]|\\d+\\s+\\d+\\s+R)`).exec(dict);
  return m ? [...m[1]!.matchAll(/(\d+)\s+\d+\s+R/g)].map((r) => Number(r[1])) : [];
}

/** The page's fonts by resource name (F1, F2...), each with its glyph-code decoder. */
function pageFonts(pageDict: string, objects: Map<number, PdfObject>): Map<string, Decoder> {
  const resources = refs(pageDict, 'Resources').map((id) => objects.get(id)?.dict ?? '')[0] ?? pageDict;
  const fontDict = /\/Font\s*<<([\s\S]*?)>>/.exec(resources)?.[1] ?? '';
  const fonts = new Map<string, Decoder>();
  for (const [, name, id] of fontDict.matchAll(/\/([^\s/]+)\s+(\d+)\s+\d+\s+R/g)) {
    const font = objects.get(Number(id));
    const cmap = font ? refs(font.dict, 'ToUnicode').map((c) => objects.get(c)?.stream)[0] : undefined;
    fonts.set(name!, cmap ? toUnicodeDecoder(cmap.toString('latin1')) : winAnsi);
  }
  return fonts;
}

const utf16 = new TextDecoder('utf-16be');
/** A hex string of UTF-16BE (pdfkit writes a ligature's units apart: `<0066 0069>`). */
const hexText = (hex: string) => utf16.decode(Buffer.from(hex.replace(/\s+/g, ''), 'hex'));

/** A ToUnicode CMap (bfchar and bfrange, both range forms) as a decoder of codes of its codespace's width. */
function toUnicodeDecoder(cmap: string): Decoder {
  const width = (/begincodespacerange\s*<([0-9a-fA-F]+)>/.exec(cmap)?.[1]?.length ?? 4) / 2;
  const map = new Map<number, string>();
  for (const block of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const [, code, text] of block[1]!.matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F\s]*)>/g)) map.set(parseInt(code!, 16), hexText(text!));
  }
  for (const block of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const [, lo, hi, list, first] of block[1]!.matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(?:\[([^\]]*)\]|<([0-9a-fA-F\s]*)>)/g)) {
      const from = parseInt(lo!, 16);
      const to = parseInt(hi!, 16);
      if (list !== undefined) {
        [...list.matchAll(/<([0-9a-fA-F\s]*)>/g)].forEach((t, i) => from + i <= to && map.set(from + i, hexText(t[1]!)));
      } else {
        // <lo> <hi> <dst>: the last UTF-16 unit of dst counts up with the code.
        const base = Buffer.from(first!.replace(/\s+/g, ''), 'hex');
        for (let code = from; code <= to; code++) {
          const text = Buffer.from(base);
          text.writeUInt16BE(base.readUInt16BE(base.length - 2) + (code - from), base.length - 2);
          map.set(code, utf16.decode(text));
        }
      }
    }
  }
  return (codes) => {
    let text = '';
    for (let i = 0; i + width <= codes.length; i += width) text += map.get(codes.readUIntBE(i, width)) ?? '\uFFFD';
    return text;
  };
}
