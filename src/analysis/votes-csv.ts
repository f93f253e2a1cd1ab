/**
 * The `--votes` CSV format: a header row, one vote per row, extra columns ignored. A row whose answer cell is
 * empty is a missing answer and is skipped (counted); malformed values stop the reading with the row number.
 */
import { createReadStream } from 'node:fs';
import { CsvError, csvRecords } from './csv.js';
import { PROTOCOL_FAMILIES, protocolFamilyOf } from './protocol-families.js';
import type {
  AnalysisFamily,
  BubbleSample,
  BubbleScreening,
  PairedVote,
  PiifaceVote,
  QuadrupleVote,
  RatingVote,
  TripletVote,
} from './types.js';

/** The family of methods of a protocol (protocol-families.ts, as its definition says: `analysis.family`). */
export function familyOfProtocol(protocol: string): AnalysisFamily | null {
  return protocolFamilyOf(protocol)?.family ?? null;
}

export const KNOWN_PROTOCOLS: readonly string[] = Object.keys(PROTOCOL_FAMILIES);

/** Required columns per family, then optional ones; `answer` is the column whose empty cell means "no answer". */
const COLUMNS: Record<AnalysisFamily, { required: string[]; optional: string[]; answer: string }> = {
  rating: { required: ['observer', 'stimulus', 'score'], optional: ['condition', 'content', 'is_reference', 'flagged'], answer: 'score' },
  paired: { required: ['observer', 'a', 'b', 'winner'], optional: ['scene', 'content', 'flagged'], answer: 'winner' },
  mlds: { required: ['observer', 's1', 's2', 's3', 's4', 'response'], optional: ['flagged'], answer: 'response' },
  triplet: { required: ['observer', 's1', 's2', 's3', 'response'], optional: ['flagged'], answer: 'response' },
  bubble: {
    required: ['observer', 'stimulus', 'media', 'width', 'height', 'radius', 'samples'],
    optional: ['rating', 'expected_emotion', 'duration_ms', 'flagged'],
    answer: 'samples',
  },
  piiface: { required: ['observer', 'stimulus', 'answer'], optional: ['expected_emotion', 'flagged'], answer: 'answer' },
};

/** `reference` is accepted for `is_reference`. */
const ALIASES: Record<string, string> = { reference: 'is_reference' };

export type VoteOf<F extends AnalysisFamily> = {
  rating: RatingVote;
  paired: PairedVote;
  mlds: QuadrupleVote;
  triplet: TripletVote;
  bubble: BubbleScreening;
  piiface: PiifaceVote;
}[F];

export interface VotesCsv<F extends AnalysisFamily = AnalysisFamily> extends AsyncIterable<VoteOf<F>> {
  family: F;
  /** Data rows read so far, and those skipped for an empty answer or an empty observer. */
  rows: number;
  skipped: number;
}

/**
 * The scores a rating protocol can give, on its reporting scale, ascending: its stored answer values
 * (`answers.ratingValues`) through its own analysis adapter (ACR: index 0..4 → 5..1), as protocol-families.ts
 * keeps them. null for the other families.
 */
export function ratingScaleOf(protocol: string): number[] | null {
  const scale = protocolFamilyOf(protocol)?.scale;
  return scale ? [...scale] : null;
}

/** Opens a votes CSV and checks its header; the rows are read lazily, once. */
export async function readVotesCsv(path: string, protocol: string): Promise<VotesCsv> {
  const family = familyOfProtocol(protocol);
  if (family === null) throw new CsvError(`unknown protocol "${protocol}" (expected one of ${KNOWN_PROTOCOLS.join(', ')})`);
  return votesFromRecords(csvRecords(createReadStream(path, { encoding: 'utf8' })), family, { protocol, scale: ratingScaleOf(protocol) });
}

/**
 * The votes of CSV records. Every row must have as many fields as the header (a stray comma would otherwise shift
 * or drop a value silently); rating scores must be on `scale` when one is given.
 */
export async function votesFromRecords(
  records: AsyncIterator<string[]>,
  family: AnalysisFamily,
  scaleOf: { protocol: string; scale: readonly number[] | null } = { protocol: family, scale: null },
): Promise<VotesCsv> {
  const first = await records.next();
  if (first.done) throw new CsvError('the file is empty (no header row)');
  const header = first.value.map((name) => ALIASES[name.trim().toLowerCase()] ?? name.trim().toLowerCase());
  const spec = COLUMNS[family];
  const missing = spec.required.filter((c) => !header.includes(c));
  if (missing.length > 0) {
    throw new CsvError(`missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} for ${family} votes (header: ${header.join(',')})`);
  }
  const at: Record<string, number> = {};
  for (const name of [...spec.required, ...spec.optional]) at[name] = header.indexOf(name);
  const parse = PARSERS[family];
  const scale = family === 'rating' ? scaleOf.scale : null;

  const result: VotesCsv = {
    family,
    rows: 0,
    skipped: 0,
    async *[Symbol.asyncIterator]() {
      for (let next = await records.next(); !next.done; next = await records.next()) {
        const record = next.value;
        if (record.length === 1 && record[0] === '') continue; // blank line
        result.rows++;
        const row = result.rows + 1; // 1-based, the header is row 1
        if (record.length !== header.length) {
          throw new CsvError(`row ${row}: ${record.length} fields where the header has ${header.length} (${record.length > header.length ? 'an extra field' : 'a missing field'}; quote values that contain commas)`);
        }
        const cell = (name: string) => (at[name] >= 0 ? (record[at[name]] ?? '').trim() : '');
        if (cell(spec.answer) === '' || cell('observer') === '') {
          result.skipped++;
          continue;
        }
        const vote = parse(cell, row);
        if (scale !== null && !scale.includes((vote as RatingVote).score)) {
          throw new CsvError(`row ${row}: score "${cell('score')}" is not on the ${scaleOf.protocol} scale (${scale.join(', ')})`);
        }
        yield vote as never;
      }
    },
  };
  return result;
}

type Cell = (name: string) => string;

function number(cell: Cell, name: string, row: number): number {
  const value = Number(cell(name));
  if (cell(name) === '' || !Number.isFinite(value)) throw new CsvError(`row ${row}: ${name} "${cell(name)}" is not a number`);
  return value;
}

function optionalNumber(cell: Cell, name: string, row: number): number | null {
  return cell(name) === '' ? null : number(cell, name, row);
}

function flag(cell: Cell, name: string, row: number): boolean {
  const value = cell(name).toLowerCase();
  if (value === '' || value === '0' || value === 'false' || value === 'no') return false;
  if (value === '1' || value === 'true' || value === 'yes') return true;
  throw new CsvError(`row ${row}: ${name} "${cell(name)}" is not a boolean (1/0, true/false)`);
}

function response(cell: Cell, row: number): 0 | 1 {
  const value = cell('response');
  if (value !== '0' && value !== '1') throw new CsvError(`row ${row}: response "${value}" is not 0 or 1`);
  return value === '1' ? 1 : 0;
}

function required(cell: Cell, name: string, row: number): string {
  const value = cell(name);
  if (value === '') throw new CsvError(`row ${row}: empty ${name}`);
  return value;
}

function samples(text: string, row: number): BubbleSample[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CsvError(`row ${row}: samples is not JSON`);
  }
  if (!Array.isArray(parsed)) throw new CsvError(`row ${row}: samples is not a JSON array`);
  return parsed.map((s: unknown) => {
    const [x, y, t] = Array.isArray(s) ? s : [(s as BubbleSample)?.x, (s as BubbleSample)?.y, (s as BubbleSample)?.t];
    if (![x, y, t].every((v) => typeof v === 'number' && Number.isFinite(v))) {
      throw new CsvError(`row ${row}: each sample needs numeric x, y, t ({"x":…,"y":…,"t":…} or [x, y, t])`);
    }
    return { x, y, t } as BubbleSample;
  });
}

const PARSERS: Record<AnalysisFamily, (cell: Cell, row: number) => unknown> = {
  rating: (cell, row): RatingVote => ({
    observer: cell('observer'),
    stimulus: required(cell, 'stimulus', row),
    score: number(cell, 'score', row),
    condition: cell('condition') || null,
    content: cell('content') || null,
    isReference: flag(cell, 'is_reference', row),
    flagged: flag(cell, 'flagged', row),
  }),
  paired: (cell, row): PairedVote => {
    const a = required(cell, 'a', row);
    const b = required(cell, 'b', row);
    const winner = cell('winner');
    if (winner !== a && winner !== b) throw new CsvError(`row ${row}: winner "${winner}" is neither a ("${a}") nor b ("${b}")`);
    if (a === b) throw new CsvError(`row ${row}: a and b are the same stimulus "${a}"`);
    return { observer: cell('observer'), a, b, winner, scene: cell('scene') || cell('content') || null, flagged: flag(cell, 'flagged', row) };
  },
  mlds: (cell, row): QuadrupleVote => ({
    observer: cell('observer'),
    s1: number(cell, 's1', row),
    s2: number(cell, 's2', row),
    s3: number(cell, 's3', row),
    s4: number(cell, 's4', row),
    response: response(cell, row),
    flagged: flag(cell, 'flagged', row),
  }),
  triplet: (cell, row): TripletVote => ({
    observer: cell('observer'),
    s1: number(cell, 's1', row),
    s2: number(cell, 's2', row),
    s3: number(cell, 's3', row),
    response: response(cell, row),
    flagged: flag(cell, 'flagged', row),
  }),
  bubble: (cell, row): BubbleScreening => {
    const media = cell('media').toUpperCase();
    if (media !== 'A' && media !== 'B') throw new CsvError(`row ${row}: media "${cell('media')}" is not A or B`);
    return {
      observer: cell('observer'),
      stimulus: required(cell, 'stimulus', row),
      media,
      width: number(cell, 'width', row),
      height: number(cell, 'height', row),
      radius: number(cell, 'radius', row),
      samples: samples(cell('samples'), row),
      rating: optionalNumber(cell, 'rating', row),
      expectedEmotion: optionalNumber(cell, 'expected_emotion', row),
      durationMs: optionalNumber(cell, 'duration_ms', row),
      flagged: flag(cell, 'flagged', row),
    };
  },
  piiface: (cell, row): PiifaceVote => ({
    observer: cell('observer'),
    stimulus: required(cell, 'stimulus', row),
    expectedEmotion: optionalNumber(cell, 'expected_emotion', row),
    answer: number(cell, 'answer', row),
    flagged: flag(cell, 'flagged', row),
  }),
};
