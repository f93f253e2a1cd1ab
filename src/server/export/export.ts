import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Protocol } from '../../contract/protocols.js';
import type { Db } from '../storage/types.js';
import { SESSION_COLUMNS, STIMULUS_COLUMNS, stimulusColumns } from './columns.js';
import { csvLine } from './csv.js';

export const EXPORT_TABLES = ['ratings', 'screenings', 'sessionlogs'] as const;
export type ExportTable = (typeof EXPORT_TABLES)[number];
export type ExportFormat = 'csv' | 'json';

/** Rows fetched per query: memory stays constant whatever the size of the job. */
const PAGE = 500;

/** A JSON document stored as text: nested in JSON Lines, kept as text in CSV. */
class JsonText {
  constructor(readonly text: string) {}
}

type Row = Record<string, unknown>;
interface TableExport {
  columns: readonly string[];
  /** One page of rows with id > afterId, in id order (keyset pagination). */
  page(db: Db, jobId: string, afterId: number): Promise<Row[]>;
}

function sessionQuery(db: Db, jobId: string) {
  return db
    .selectFrom('sessions as s')
    .innerJoin('jobs as j', 'j.id', 's.job_id')
    .leftJoin('session_identities as i', 'i.session_id', 's.id')
    .where('s.job_id', '=', jobId)
    .select([
      's.job_id',
      'j.protocol',
      's.playlist_id',
      's.id as session_id',
      's.platform',
      'i.worker_id',
      'i.assignment_id',
      'i.hit_id',
      'i.prolific_pid',
      'i.study_id',
      'i.prolific_session_id',
      'i.email',
      's.bcheck_id',
      's.created_at as session_started_at',
      's.completed_at as session_completed_at',
    ]);
}

function withStimulus(row: Row & { protocol: string; spec: string; is_training: number }): Row {
  const { spec, ...rest } = row;
  return { ...rest, is_training: row.is_training === 1, ...stimulusColumns(row.protocol as Protocol, spec), stimulus_spec: new JsonText(spec) };
}

/** Client logs: the web client sends JSON (PresentationRecord[]), nested as such; other text stays text. */
function logsValue(logs: string | null): unknown {
  if (logs === null || !/^\s*[[{]/.test(logs)) return logs;
  try {
    JSON.parse(logs);
    return new JsonText(logs);
  } catch {
    return logs;
  }
}

const TABLES: Record<ExportTable, TableExport> = {
  ratings: {
    columns: ['rating_id', ...SESSION_COLUMNS, ...STIMULUS_COLUMNS, 'value', 'nb_replay', 'logs', 'created_at'],
    async page(db, jobId, afterId) {
      const rows = await sessionQuery(db, jobId)
        .innerJoin('ratings as r', 'r.session_id', 's.id')
        .innerJoin('stimuli as st', 'st.id', 'r.stimulus_id')
        .select(['r.id as rating_id', 'r.stimulus_id', 'st.position as stimulus_position', 'st.is_training', 'st.spec', 'r.value', 'r.nb_replay', 'r.logs', 'r.created_at'])
        .where('r.id', '>', afterId)
        .orderBy('r.id')
        .limit(PAGE)
        .execute();
      return rows.map((r) => ({ ...withStimulus(r), logs: logsValue(r.logs), _key: r.rating_id }));
    },
  },
  screenings: {
    columns: ['screening_id', ...SESSION_COLUMNS, ...STIMULUS_COLUMNS, 'screening_no', 'samples_a', 'samples_b', 'mouse_logs', 'created_at'],
    async page(db, jobId, afterId) {
      const rows = await sessionQuery(db, jobId)
        .innerJoin('screenings as m', 'm.session_id', 's.id')
        .innerJoin('stimuli as st', 'st.id', 'm.stimulus_id')
        .select(['m.id as screening_id', 'm.stimulus_id', 'st.position as stimulus_position', 'st.is_training', 'st.spec', 'm.screening_no', 'm.mouse_logs', 'm.created_at'])
        .where('m.id', '>', afterId)
        .orderBy('m.id')
        .limit(PAGE)
        .execute();
      return rows.map((r) => {
        const logs = JSON.parse(r.mouse_logs) as { mediaA: unknown[]; mediaB: unknown[] };
        return {
          ...withStimulus(r),
          samples_a: logs.mediaA.length,
          samples_b: logs.mediaB.length,
          mouse_logs: new JsonText(r.mouse_logs),
          _key: r.screening_id,
        };
      });
    },
  },
  sessionlogs: {
    columns: ['log_id', ...SESSION_COLUMNS, 'body', 'created_at'],
    async page(db, jobId, afterId) {
      const rows = await sessionQuery(db, jobId)
        .innerJoin('session_logs as l', 'l.session_id', 's.id')
        .select(['l.id as log_id', 'l.body', 'l.created_at'])
        .where('l.id', '>', afterId)
        .orderBy('l.id')
        .limit(PAGE)
        .execute();
      return rows.map((r) => ({ ...r, body: new JsonText(r.body), _key: r.log_id }));
    },
  },
};

/**
 * Streams one job's table in long format (one row per rating, screening or log post) to `out`: CSV with a
 * header line, or JSON Lines (one object per line, JSON documents nested). Pages are read by keyset pagination
 * and written with backpressure, so memory does not grow with the export. Resolves with the row count.
 */
export async function exportJob(db: Db, jobId: string, opts: { table: ExportTable; format: ExportFormat; out: Writable }): Promise<number> {
  const spec = TABLES[opts.table];
  const write = async (chunk: string) => {
    if (!opts.out.write(chunk)) await once(opts.out, 'drain');
  };
  if (opts.format === 'csv') await write(csvLine(spec.columns));
  let afterId = 0;
  let count = 0;
  for (;;) {
    const rows = await spec.page(db, jobId, afterId);
    if (rows.length === 0) break;
    let chunk = '';
    for (const row of rows) {
      chunk += opts.format === 'csv' ? csvLine(spec.columns.map((c) => csvValue(row[c]))) : jsonLine(spec.columns, row);
    }
    await write(chunk);
    count += rows.length;
    afterId = rows[rows.length - 1]._key as number;
  }
  return count;
}

function csvValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof JsonText) return value.text;
  if (typeof value === 'boolean') return value ? '1' : '0';
  return String(value);
}

function jsonLine(columns: readonly string[], row: Row): string {
  const parts = columns.map((c) => {
    const v = row[c];
    return `${JSON.stringify(c)}:${v instanceof JsonText ? v.text : JSON.stringify(v ?? null)}`;
  });
  return `{${parts.join(',')}}\n`;
}
