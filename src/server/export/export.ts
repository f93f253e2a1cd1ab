import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { PROTOCOLS, protocolOf, type ProtocolRegistry } from '../../protocols/registry.js';
import { ratingRows, ratingViewRows, screeningRows, sessionLogRows, type ExportScope } from '../storage/exports.js';
import type { Storage } from '../storage/types.js';
import { SESSION_COLUMNS, STIMULUS_COLUMNS } from './columns.js';
import { csvLine, neutraliseFormula } from '../../analysis/csv.js';
import type { ViewsRecord } from '../../contract/payloads.js';
import type { StimulusCheck } from '../../contract/quality.js';
import type { RuleOutcome } from '../../quality/rules.js';
import { reasonInWords, verdictsOf } from '../../quality/reasons.js';
import { parseTiming, PRESENTATION_COLUMNS, presentationRows, TIMING_SUMMARY_COLUMNS, timingSummary } from './timing.js';

export const EXPORT_TABLES = ['ratings', 'screenings', 'sessionlogs', 'presentations', 'views'] as const;
export type ExportTable = (typeof EXPORT_TABLES)[number];
export type ExportFormat = 'csv' | 'json';

/** A JSON document stored as text: nested in JSON Lines, kept as text in CSV. */
class JsonText {
  constructor(readonly text: string) {}
}

type Row = Record<string, unknown>;
type StimulusRow = Row & { protocol: string; spec: string; is_training: number };

interface TableExport {
  columns: readonly string[];
  /** The table's rows, a page at a time. */
  pages(storage: Storage, jobId: string, protocols: ProtocolRegistry, scope: ExportScope): AsyncIterable<Row[]>;
}

/** Keyset pagination over one of storage/exports.ts's readers. */
async function* paged<R extends { id: number }>(read: (afterId: number) => Promise<R[]>): AsyncIterable<R[]> {
  for (let afterId = 0; ; ) {
    const rows = await read(afterId);
    if (rows.length === 0) return;
    yield rows;
    afterId = rows[rows.length - 1]!.id;
  }
}

/** The session's two verdicts (payment, analysis) in words, and the failed rules' reasons in words. */
function withVerdict(row: Row): Row {
  const { verdict_accepted: _accepted, verdict_outcomes, ...rest } = row;
  if (typeof verdict_outcomes !== 'string') return { ...rest, session_verdict: null, session_analysis: null, session_verdict_reasons: null };
  const outcomes = JSON.parse(verdict_outcomes) as RuleOutcome[];
  const { approved, included } = verdictsOf(outcomes);
  const failed = outcomes.filter((o) => o.status === 'failed');
  return {
    ...rest,
    session_verdict: approved ? 'approved' : 'rejected',
    session_analysis: included ? 'included' : 'excluded',
    session_verdict_reasons: failed.length ? failed.map((o) => reasonInWords(o)).join('; ') : null,
  };
}

function withStimulus(row: StimulusRow, protocols: ProtocolRegistry): Row {
  const { spec, ...rest } = row;
  const protocol = protocolOf(row.protocol, protocols);
  const parsed = JSON.parse(spec) as { check?: StimulusCheck };
  const check = parsed.check;
  // Training stimuli carry no check (import refuses it); a screening has no value to hold against one.
  const passed = check && typeof row.value === 'number' && protocol?.checks ? protocol.checks.passed(check, { stimulusId: Number(row.stimulus_id), spec: parsed, value: row.value, attributes: () => ({}) }) : null;
  return {
    ...withVerdict(rest),
    is_training: row.is_training === 1,
    ...protocol?.stimulus.columns(parsed),
    check_kind: check?.kind ?? null,
    check_answer: check?.answer ?? null,
    check_passed: passed,
    stimulus_spec: new JsonText(spec),
  };
}

/** Logs that hold JSON (pages before the timing envelope put their records there) are nested as JSON; text stays text. */
function logsValue(logs: string | null): unknown {
  if (logs === null || !/^\s*[[{]/.test(logs)) return logs;
  try {
    JSON.parse(logs);
    return new JsonText(logs);
  } catch {
    return logs;
  }
}

const TIMING_COLUMNS = [...TIMING_SUMMARY_COLUMNS, 'timing'] as const;
const timingColumns = (timing: string | null, logs: string | null = null): Row => {
  const envelope = parseTiming(timing, logs);
  return { ...timingSummary(envelope), timing: timing !== null ? new JsonText(timing) : envelope ? JSON.stringify(envelope) : null };
};

const TABLES: Record<ExportTable, TableExport> = {
  ratings: {
    columns: ['rating_id', ...SESSION_COLUMNS, ...STIMULUS_COLUMNS, 'value', 'nb_replay', 'logs', ...TIMING_COLUMNS, 'created_at'],
    async *pages(storage, jobId, protocols, scope) {
      for await (const rows of paged((after) => ratingRows(storage, jobId, after, scope))) {
        yield rows.map((r) => ({ ...withStimulus(r, protocols), rating_id: r.id, logs: logsValue(r.logs), ...timingColumns(r.timing, r.logs) }));
      }
    },
  },
  screenings: {
    columns: ['screening_id', ...SESSION_COLUMNS, ...STIMULUS_COLUMNS, 'screening_no', 'samples_a', 'samples_b', 'mouse_logs', ...TIMING_COLUMNS, 'created_at'],
    async *pages(storage, jobId, protocols, scope) {
      for await (const rows of paged((after) => screeningRows(storage, jobId, after, scope))) {
        yield rows.map((r) => {
          const logs = JSON.parse(r.mouse_logs) as { mediaA: unknown[]; mediaB: unknown[] };
          return {
            ...withStimulus(r, protocols),
            screening_id: r.id,
            samples_a: logs.mediaA.length,
            samples_b: logs.mediaB.length,
            mouse_logs: new JsonText(r.mouse_logs),
            ...timingColumns(r.timing),
          };
        });
      }
    },
  },
  sessionlogs: {
    columns: ['log_id', ...SESSION_COLUMNS, 'body', 'created_at'],
    async *pages(storage, jobId, _protocols, scope) {
      for await (const rows of paged((after) => sessionLogRows(storage, jobId, after, scope))) {
        yield rows.map((r) => ({ ...withVerdict(r), log_id: r.id, body: new JsonText(r.body) }));
      }
    },
  },
  // One row per presentation step of every rating, then of every bubble screening.
  presentations: {
    columns: ['answer', 'answer_id', ...SESSION_COLUMNS, 'stimulus_id', 'is_training', ...PRESENTATION_COLUMNS],
    async *pages(storage, jobId, _protocols, scope) {
      type Answer = Row & { id: number; is_training: number; timing: string | null; logs?: string | null };
      const steps = (answer: string, rows: Answer[]) =>
        rows.flatMap((r) =>
          presentationRows(parseTiming(r.timing, r.logs ?? null)).map((step) => ({ ...withVerdict(r), answer, answer_id: r.id, is_training: r.is_training === 1, ...step })),
        );
      for await (const rows of paged((after) => ratingRows(storage, jobId, after, scope))) yield steps('rating', rows);
      for await (const rows of paged((after) => screeningRows(storage, jobId, after, scope))) yield steps('screening', rows);
    },
  },
  // One row per camera pose of a 3D object (docs/3d-objects.md): every sample posted with every rating.
  views: {
    columns: ['rating_id', ...SESSION_COLUMNS, 'stimulus_id', 'stimulus_position', 'is_training', 'stimulus_type', 'source', 'source_a', 'source_b', 'value', 'mode', 'sample', 'play', 'frame', 't', 'az', 'el', 'dist'],
    async *pages(storage, jobId, protocols, scope) {
      for await (const rows of paged((after) => ratingViewRows(storage, jobId, after, scope))) {
        yield rows.flatMap(({ views, ...r }) => {
          const record = JSON.parse(views!) as ViewsRecord;
          const rating = { ...withStimulus(r, protocols), rating_id: r.id, mode: record.mode };
          return record.samples.map((sample, i) => ({ ...rating, sample: i, ...sample }));
        });
      }
    },
  },
};

/**
 * Streams one job's table in long format (one row per rating, screening, log post, presentation step or camera
 * pose) to `out`:
 * CSV with a header line, or JSON Lines (one object per line, JSON documents nested). Pages are written with
 * backpressure, so memory does not grow with the export. Resolves with the row count.
 *
 * CSV text cells that begin with `=`, `+`, `-`, `@`, tab or CR (ids, logs text, stimulus names: strings from the
 * data) get a leading `'` so a spreadsheet does not run them (OWASP CSV injection); numbers stay numbers. `raw`
 * writes every cell as stored, for scripts. JSON Lines are never changed.
 */
export async function exportJob(
  storage: Storage,
  jobId: string,
  opts: { table: ExportTable; format: ExportFormat; out: Writable; protocols?: ProtocolRegistry; raw?: boolean; includePreview?: boolean },
): Promise<number> {
  const spec = TABLES[opts.table];
  const write = async (chunk: string) => {
    if (!opts.out.write(chunk)) await once(opts.out, 'drain');
  };
  if (opts.format === 'csv') await write(csvLine(spec.columns));
  let count = 0;
  for await (const rows of spec.pages(storage, jobId, opts.protocols ?? PROTOCOLS, { includePreview: opts.includePreview === true })) {
    let chunk = '';
    for (const row of rows) chunk += opts.format === 'csv' ? csvLine(spec.columns.map((c) => csvValue(row[c], opts.raw === true))) : jsonLine(spec.columns, row);
    await write(chunk);
    count += rows.length;
  }
  return count;
}

function csvValue(value: unknown, raw: boolean): string {
  if (value === null || value === undefined) return '';
  // Stored JSON documents begin with `{` or `[`: never a formula.
  if (value instanceof JsonText) return value.text;
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'string') return raw ? value : neutraliseFormula(value);
  return String(value);
}

function jsonLine(columns: readonly string[], row: Row): string {
  const parts = columns.map((c) => {
    const v = row[c];
    return `${JSON.stringify(c)}:${v instanceof JsonText ? v.text : JSON.stringify(v ?? null)}`;
  });
  return `{${parts.join(',')}}\n`;
}
