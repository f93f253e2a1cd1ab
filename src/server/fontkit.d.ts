/** The part of fontkit (pdfkit's font engine, no types of its own) that consent-pdf.ts uses. */
declare module 'fontkit' {
  export interface Font {
    postscriptName: string;
    unitsPerEm: number;
    ascent: number;
    hasGlyphForCodePoint(codePoint: number): boolean;
    /** pdfkit takes a Font wherever it takes a font file (it calls `layout`). */
    layout(text: string, features?: string[] | Record<string, boolean>): unknown;
  }
  export function create(buffer: Uint8Array, postscriptName?: string): Font;
}
