import { parse } from 'csv-parse/sync';

/** A CSV export read as the tests need it: objects keyed by the header line (csv-parse, as the analysis reads it). */
export function parseCsv(text: string): Array<Record<string, string>> {
  return parse(text, { columns: true, bom: true, relax_column_count: true, skip_empty_lines: true }) as Array<Record<string, string>>;
}
