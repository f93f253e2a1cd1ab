/**
 * RFC 4180 CSV: a streaming reader (quoted fields, doubled quotes, line breaks inside quotes, CRLF or LF)
 * and the writer used for the report tables (CRLF, fields quoted only when needed).
 */

export class CsvError extends Error {}

const enum State {
  FieldStart,
  Unquoted,
  Quoted,
  /** A quote inside a quoted field: the field ends, or it is the first of a doubled quote. */
  QuoteSeen,
  /** After CR: a following LF belongs to the same line end. */
  AfterCr,
}

/** Splits a stream of text chunks into records; memory holds one record at a time. */
export async function* csvRecords(chunks: AsyncIterable<string | Buffer> | Iterable<string>): AsyncGenerator<string[]> {
  let state = State.FieldStart as State;
  let field = '';
  let record: string[] = [];
  let line = 1;
  let first = true;

  for await (const raw of chunks) {
    let chunk = typeof raw === 'string' ? raw : raw.toString('utf8');
    if (first && chunk.length > 0) {
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1); // byte-order mark of spreadsheet exports
      first = false;
    }
    let run = 0; // start of the plain characters of the current field not yet copied into `field`
    const ready: string[][] = [];
    // A field ends at a comma (the record goes on) or at a line end (the record is ready).
    const endField = (value: string, c: number) => {
      record.push(value);
      field = '';
      state = State.FieldStart;
      if (c === 44) return;
      ready.push(record);
      record = [];
      line++;
      if (c === 13) state = State.AfterCr;
    };
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (state === State.AfterCr) {
        state = State.FieldStart;
        if (c === 10) continue;
      }
      switch (state) {
        case State.FieldStart:
          if (c === 34) {
            state = State.Quoted;
            run = i + 1;
          } else if (c === 44 || c === 10 || c === 13) endField('', c);
          else {
            state = State.Unquoted;
            run = i;
          }
          break;
        case State.Unquoted:
          if (c === 44 || c === 10 || c === 13) endField(field + chunk.slice(run, i), c);
          else if (c === 34) throw new CsvError(`line ${line}: quote inside an unquoted field`);
          break;
        case State.Quoted:
          if (c === 34) {
            field += chunk.slice(run, i);
            state = State.QuoteSeen;
          } else if (c === 10) line++;
          break;
        case State.QuoteSeen:
          if (c === 34) {
            field += '"';
            state = State.Quoted;
            run = i + 1;
          } else if (c === 44 || c === 10 || c === 13) endField(field, c);
          else throw new CsvError(`line ${line}: text after a closing quote`);
          break;
      }
    }
    if (state === State.Unquoted || state === State.Quoted) field += chunk.slice(run);
    yield* ready;
  }
  if (state === State.Quoted) throw new CsvError(`line ${line}: unterminated quoted field`);
  if (state === State.Unquoted || state === State.QuoteSeen || record.length > 0) {
    record.push(field);
    yield record;
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

/** RFC 4180 field: quoted when it holds a comma, quote or line break; quotes doubled. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvLine(values: readonly string[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
