import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ROUTE_OF_PROTOCOL } from '../contract/protocols.js';
import { PRIVACY_USAGE, purgeIdentitiesCommand, withdrawCommand } from './cli-privacy.js';
import { configFromEnv } from './config.js';
import { EXPORT_TABLES, exportJob, type ExportFormat, type ExportTable } from './export/export.js';
import { findJob, jobSummaries } from './storage/jobs.js';
import { openStorage } from './storage/open.js';
import type { Storage } from './storage/types.js';
import { importStudy, StudyConflictError } from './study/import.js';
import { StudyValidationError } from './study/validate.js';

const USAGE = `Usage: npm run cli -- <command>
  import <study.json>...                     load or update jobs, copy their media into MEDIA_DIR
  export <jobId> [--format csv|json] [--table ratings|screenings|sessionlogs] [--out FILE]
                                             long format, one row per answer; json = JSON Lines
  list                                       jobs with sessions started/completed and answers stored
${PRIVACY_USAGE}
Environment: DATABASE_URL, MEDIA_DIR, PUBLIC_URL (participant links; default http://HOST:PORT)`;

const COMMANDS = ['import', 'export', 'list', 'withdraw', 'purge-identities'];

/** Base of the participant links printed after an import. */
export function publicUrl(env: NodeJS.ProcessEnv = process.env): string {
  const config = configFromEnv(env);
  return (env.PUBLIC_URL || `http://${config.host}:${config.port}`).replace(/\/+$/, '');
}

/** Runs one CLI command; resolves with the exit code. Output goes to the given streams (tests capture them). */
export async function runCli(argv: string[], io: { out: Writable; err: Writable } = { out: process.stdout, err: process.stderr }): Promise<number> {
  const [command, ...rest] = argv;
  const config = configFromEnv();
  const say = (line: string) => io.out.write(`${line}\n`);
  const fail = (line: string) => (io.err.write(`${line}\n`), 1);

  if (!COMMANDS.includes(command)) return fail(USAGE);
  const storage = await openStorage({ databaseUrl: config.databaseUrl, sqliteSynchronous: config.sqliteSynchronous });
  try {
    if (command === 'import') return await importCommand(storage, rest, config.mediaDir, say, fail);
    if (command === 'list') {
      const jobs = await jobSummaries(storage.db);
      say('job\tprotocol\tplaylists\tsessions_started\tsessions_completed\tratings\tscreenings');
      for (const j of jobs) say([j.id, j.protocol, j.playlists, j.sessionsStarted, j.sessionsCompleted, j.ratings, j.screenings].join('\t'));
      return 0;
    }
    if (command === 'withdraw') return await withdrawCommand(storage, rest, say, fail);
    if (command === 'purge-identities') return await purgeIdentitiesCommand(storage, rest, say, fail);
    return await exportCommand(storage, rest, io, fail);
  } finally {
    await storage.close();
  }
}

async function importCommand(storage: Storage, files: string[], mediaDir: string, say: (l: string) => void, fail: (l: string) => number) {
  if (files.length === 0) return fail(USAGE);
  let code = 0;
  for (const file of files) {
    try {
      const r = await importStudy(storage, file, mediaDir);
      say(`${r.status} job ${r.jobId} (${r.protocol}): ${r.playlists} playlists, ${r.stimuli} stimuli, ${r.mediaCopied} media files copied`);
      say(`participant link: ${publicUrl()}/${ROUTE_OF_PROTOCOL[r.protocol]}/${r.jobId}`);
    } catch (error) {
      if (!(error instanceof StudyValidationError || error instanceof StudyConflictError)) throw error;
      code = fail(`import of ${file} refused: ${error.message}`);
    }
  }
  return code;
}

async function exportCommand(storage: Storage, args: string[], io: { out: Writable; err: Writable }, fail: (l: string) => number) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { format: { type: 'string', default: 'csv' }, table: { type: 'string', default: 'ratings' }, out: { type: 'string' } },
  });
  const [jobId] = positionals;
  if (!jobId || positionals.length > 1) return fail(USAGE);
  if (values.format !== 'csv' && values.format !== 'json') return fail(`--format must be csv or json, got ${values.format}`);
  if (!(EXPORT_TABLES as readonly string[]).includes(values.table!)) return fail(`--table must be one of ${EXPORT_TABLES.join(', ')}`);
  if (!(await findJob(storage.db, jobId))) return fail(`no job ${jobId}`);
  const out = values.out ? createWriteStream(values.out) : io.out;
  const rows = await exportJob(storage.db, jobId, { table: values.table as ExportTable, format: values.format as ExportFormat, out });
  if (values.out) {
    out.end();
    await finished(out);
    io.err.write(`${rows} ${values.table} rows written to ${values.out}\n`);
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? error}\n`);
      process.exit(1);
    },
  );
}
