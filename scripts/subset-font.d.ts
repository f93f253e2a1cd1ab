/** The call of subset-font (harfbuzz hb-subset) that make-consent-fonts.ts uses; the package has no types. */
declare module 'subset-font' {
  export default function subsetFont(
    font: Uint8Array,
    text: string,
    options?: { targetFormat?: 'sfnt' | 'woff' | 'woff2' | 'truetype'; noLayoutClosure?: boolean; dropTables?: string[] },
  ): Promise<Uint8Array>;
}
