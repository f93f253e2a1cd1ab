/**
 * Markdown pieces for docs/benchmarks.md. Every figure the report prints goes through `num` (or `percent`, `ratio`),
 * so a value a result lacks reads "—" instead of "undefined", and the same number always prints the same way.
 */

/**
 * A number with thousands separators and at most `digits` decimals, trailing zeros dropped: a result that stored
 * whole milliseconds prints "5", never a "5.0" that claims a precision it did not measure.
 */
export function num(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return value.toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: digits });
}

/** A ratio as "× 1.85". */
export const times = (value: number | null | undefined, digits = 2): string => `× ${num(value, digits)}`;

/** A share (0–1) or a percentage (0–100, `isPercent`) as "34.8 %". */
export function percent(value: number | null | undefined, digits = 1, isPercent = false): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return `${num(isPercent ? value : value * 100, digits)} %`;
}

/** "yes" / "no" for a flag the result computed (a target met, every drop recorded). */
export const yesNo = (flag: boolean | null | undefined): string => (flag === undefined || flag === null ? '—' : flag ? 'yes' : 'no');

/** "a/b": how many of a count held. */
export const outOf = (held: number | null | undefined, of: number | null | undefined): string => `${num(held)}/${num(of)}`;

/** A GitHub-style table; cells are strings already formatted, `right` names the columns aligned right. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[], right: readonly number[] = []): string {
  const escape = (cell: string) => cell.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const line = (cells: readonly string[]) => `| ${cells.map(escape).join(' | ')} |`;
  const rule = `|${headers.map((_, i) => (right.includes(i) ? '---:' : '---')).join('|')}|`;
  for (const row of rows) {
    if (row.length !== headers.length) throw new Error(`table row has ${row.length} cells, the header ${headers.length}: ${row.join(' | ')}`);
  }
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

/** A bulleted list. */
export const bullets = (items: readonly string[]): string => items.map((item) => `- ${item}`).join('\n');

/** The date and minute of an ISO time, in UTC: "2026-11-28 08:40 UTC". */
export function when(iso: string | null | undefined): string {
  if (!iso) return 'date not recorded';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 16)} UTC`;
}

/** The day only: "2026-11-28". */
export const day = (iso: string | null | undefined): string => (iso ? when(iso).slice(0, 10) : 'date not recorded');

/** Blocks joined by blank lines, empty ones left out. */
export const blocks = (...parts: readonly (string | null | undefined | false)[]): string =>
  parts.filter((part): part is string => typeof part === 'string' && part.length > 0).join('\n\n');
