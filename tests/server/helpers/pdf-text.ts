import { inflateSync } from 'node:zlib';

/**
 * The text drawn in a pdfkit PDF: inflates each content stream and decodes the hex strings of its TJ
 * operators (WinAnsi, the standard fonts' encoding); one line per text object.
 */
export function pdfText(pdf: Buffer): string {
  const decoder = new TextDecoder('windows-1252');
  const source = pdf.toString('latin1');
  const lines: string[] = [];
  for (const m of source.matchAll(/stream\r?\n([\s\S]*?)\r?\nendstream/g)) {
    let content: string;
    try {
      content = inflateSync(Buffer.from(m[1], 'latin1')).toString('latin1');
    } catch {
      continue;
    }
    for (const op of content.matchAll(/\[(.*?)\]\s*TJ/g)) {
      const hex = [...op[1].matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => h[1]).join('');
      lines.push(decoder.decode(Buffer.from(hex, 'hex')));
    }
  }
  return lines.join('\n');
}
