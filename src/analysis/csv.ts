/**
 * RFC 4180 CSV through csv-parse and csv-stringify (Adaltas' node-csv, docs/libraries.md): a streaming reader
 * (quoted fields, doubled quotes, line breaks inside quotes, CRLF, LF or CR, a byte-order mark), and the writer of
 * the exports and report tables (CRLF, fields quoted only when needed), plus the spreadsheet-formula defence.
 */
import { parse, type Options as ParseOptions } from 'csv-parse';
import { stringify, type Options as StringifyOptions } from 'csv-stringify/sync';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export class CsvError extends Error {}

/**
 * Records may differ in length (a votes file's optional columns), line ends may mix (a file edited on two systems),
 * and a blank line is a record of one empty field, as RFC 4180 reads it (the callers skip it).
 */
const READING: ParseOptions = { bom: true, relax_column_count: true, skip_empty_lines: false, record_delimiter: ['\r\n', '\n', '\r'] };

/** csv-parse's codes for malformed quoting, in the words the analysis prints. */
const QUOTING_PROBLEMS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'unterminated quoted field',
  CSV_INVALID_CLOSING_QUOTE: 'text after a closing quote',
  INVALID_OPENING_QUOTE: 'quote inside an unquoted field',
};

/** A CsvError naming the line, for csv-parse's errors; any other error (the file's own) as it is. */
function readingError(error: unknown): unknown {
  const { code, lines, message } = error as { code?: string; lines?: number; message?: string };
  if (typeof code !== 'string' || typeof lines !== 'number' || !/^(CSV_|INVALID_)/.test(code)) return error;
  return new CsvError(`line ${lines}: ${QUOTING_PROBLEMS[code] ?? message}`);
}

/** Splits a stream of text chunks into records; memory holds one record at a time (and csv-parse's buffers). */
export async function* csvRecords(chunks: AsyncIterable<string | Buffer> | Iterable<string>): AsyncGenerator<string[]> {
  const parser = parse(READING);
  // The source's own failure reaches the loop below through the parser, which the pipeline destroys with it.
  const feeding = pipeline(Readable.from(chunks), parser).catch(() => undefined);
  try {
    for await (const record of parser) yield record as string[];
  } catch (error) {
    throw readingError(error);
  } finally {
    parser.destroy();
    await feeding;
  }
}

/** First characters that make a spreadsheet read a cell as a formula (OWASP "CSV Injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A plain decimal number: a spreadsheet reads it as that number, never as a formula (as defusedcsv leaves it). */
const PLAIN_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * OWASP CSV-injection defence for text that came from participants or study files: a cell that begins with `=`,
 * `+`, `-`, `@`, tab or carriage return gets a leading single quote, so Excel, LibreOffice and Google Sheets show
 * it as text (`=1+1` → `'=1+1`) instead of evaluating it (`=HYPERLINK(...)`, DDE). Plain numbers (`-1.5`) are left
 * alone. Callers apply it to string values only, never to numbers they write themselves, and skip it for `--raw`.
 */
export function neutraliseFormula(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

/**
 * CRLF records; a field is quoted when it holds a comma, a quote or a line break (csv-stringify quotes only at its
 * own record delimiter, CRLF, unless told: a lone LF or CR would split the record for other readers).
 */
const WRITING: StringifyOptions = { record_delimiter: 'windows', quoted_match: /[\r\n]/ };

/** Records as CSV text, each ending in CRLF. */
export function csvLines(records: ReadonlyArray<readonly string[]>): string {
  return stringify(records as string[][], WRITING);
}

/** One record as a CSV line ending in CRLF. */
export function csvLine(values: readonly string[]): string {
  return csvLines([values]);
}
