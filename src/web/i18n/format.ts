/** Fill the `{name}` placeholders of a string-table entry. Unknown placeholders are left as written. */
export function fill(template: string, vars: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}

/** French typography's spaces: a no-break space before « : » and inside « », a narrow one before « ; ! ? % ». */
export const NBSP = '\u00a0';
export const NNBSP = '\u202f';

/**
 * A French text with French typography: the space written before « : ; ! ? % » and inside « » becomes the no-break
 * space French puts there (so a line never starts with « : »), and a straight apostrophe a curly one. Tables are
 * written with plain spaces, as they are read; this runs on what the page shows, so no French text can miss it.
 */
export function frenchTypography(text: string): string {
  return text
    .replace(/ +:/g, `${NBSP}:`)
    .replace(/ +([;!?%])/g, `${NNBSP}$1`)
    .replace(/« +/g, `«${NBSP}`)
    .replace(/ +»/g, `${NBSP}»`)
    .replace(/(\p{L})'(?=\p{L})/gu, '$1’');
}

/** A table of texts (strings, nested tables, functions returning strings) with French typography throughout. */
export function withFrenchTypography<T>(table: T): T {
  if (typeof table === 'string') return frenchTypography(table) as T;
  if (typeof table === 'function') return ((...args: unknown[]) => withFrenchTypography((table as (...a: unknown[]) => unknown)(...args))) as T;
  if (table && typeof table === 'object') return Object.fromEntries(Object.entries(table).map(([key, value]) => [key, withFrenchTypography(value)])) as T;
  return table;
}
