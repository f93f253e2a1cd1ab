import { describe, expect, it } from 'vitest';
import { CsvError, csvLine, csvRecords, neutraliseFormula } from './csv.js';

async function parse(chunks: string[]): Promise<string[][]> {
  const out: string[][] = [];
  for await (const record of csvRecords(chunks)) out.push(record);
  return out;
}

const TEXT = '\uFEFFobserver,stimulus,score\r\n"o,1","say ""hi""",5\r\no2,"two\r\nlines",\r\n,,\n"",x,"3"\n';
const EXPECTED = [
  ['observer', 'stimulus', 'score'],
  ['o,1', 'say "hi"', '5'],
  ['o2', 'two\r\nlines', ''],
  ['', '', ''],
  ['', 'x', '3'],
];

describe('csvRecords (RFC 4180)', () => {
  it('reads quoted fields, doubled quotes, line breaks in quotes, CRLF and LF, empty fields, a BOM', async () => {
    expect(await parse([TEXT])).toEqual(EXPECTED);
  });

  it('gives the same records whatever the chunk boundaries', async () => {
    for (let cut = 1; cut < TEXT.length; cut++) expect(await parse([TEXT.slice(0, cut), TEXT.slice(cut)])).toEqual(EXPECTED);
    expect(await parse([...TEXT])).toEqual(EXPECTED);
  });

  it('keeps a last record without a line break, and a CR line end split from its LF', async () => {
    expect(await parse(['a,b\r', '\nc,"d"'])).toEqual([['a', 'b'], ['c', 'd']]);
    expect(await parse(['a,'])).toEqual([['a', '']]);
    expect(await parse([''])).toEqual([]);
  });

  it('rejects malformed quoting with the line number', async () => {
    await expect(parse(['a,b\nc,"d'])).rejects.toThrow(new CsvError('line 2: unterminated quoted field'));
    await expect(parse(['a,b\nc,d"e"\n'])).rejects.toThrow(CsvError);
    await expect(parse(['a,"b"c\n'])).rejects.toThrow(/text after a closing quote/);
  });

  it('writes what it reads (CRLF, quotes only where needed)', async () => {
    const rows = [['plain', 'with,comma', 'with "quote"', 'line\nbreak', '']];
    const text = rows.map(csvLine).join('');
    expect(text).toBe('plain,"with,comma","with ""quote""","line\nbreak",\r\n');
    expect(await parse([text])).toEqual(rows);
  });
});

describe('neutraliseFormula (OWASP CSV injection)', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['=HYPERLINK("http://x","y")', `'=HYPERLINK("http://x","y")`],
    ['+SUM(A1)', "'+SUM(A1)"],
    ['-A1', "'-A1"],
    ['-2+3', "'-2+3"],
    ['@SUM(1)', "'@SUM(1)"],
    ['\t=1', "'\t=1"],
    ['\r=1', "'\r=1"],
  ])('quotes %j', (text, expected) => {
    expect(neutraliseFormula(text)).toBe(expected);
  });

  it.each(['', 'abc', ' =1+1', "'=1", 'a=1', '-1', '+1.5', '-.5', '-1e-3', '42', 'Иван', '王小明'])('leaves %j alone', (text) => {
    expect(neutraliseFormula(text)).toBe(text);
  });

  it('keeps the CSV quoting of what it returns', () => {
    expect(csvLine([neutraliseFormula('=HYPERLINK("http://x","y")')])).toBe(`"'=HYPERLINK(""http://x"",""y"")"\r\n`);
  });
});
