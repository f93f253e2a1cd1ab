import { createWriteStream, readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { PRIVACY_USAGE, purgeIdentitiesCommand, withdrawCommand } from './cli-privacy.js';
import { decisionsCommand, QUALITY_USAGE, screenCommand } from './cli-quality.js';
import { userCommand, USERS_USAGE } from './cli-users.js';
import { JOB_REPORT_USAGE, reportCommand } from './cli-report.js';
import { parseInclusion } from './report/job-report.js';
import { configFromEnv } from './config.js';
import { ANALYSIS_FORMATS, exportAnalysisFormat, type AnalysisFormat } from './export/analysis-formats.js';
import { EXPORT_TABLES, exportJob, type ExportFormat, type ExportTable } from './export/export.js';
import { protocolOf } from '../protocols/registry.js';
import { participantLinks, playlistSignature, reachableBase } from './playlist-links.js';
import { findJob, jobPlaylists, jobSummaries } from './storage/jobs.js';
import { openStorage } from './storage/open.js';
import type { Storage } from './storage/types.js';
import { importStudy, StudyConflictError } from './study/import.js';
import { StudyValidationError } from './study/validate.js';

const USAGE = `Usage: npm run cli -- <command>
  import [--replace] <study.json>...         load or update jobs, copy their media into MEDIA_DIR (all or nothing);
                                             --replace lets a file replace a job another file (or protocol) made
  export <jobId> [--format csv|json] [--table ratings|screenings|sessionlogs|presentations|views] [--out FILE] [--raw]
                                             long format, one row per answer; json = JSON Lines; the researchers'
         [--include-preview]                 console previews only with --include-preview (session_preview = 1)
  export <jobId> --format p910|pairs|mlds [--out FILE] [--include rejected|excluded|all] [--raw]
                                             for other tools: P.910 toolkit votes per clip, pwcmp/choix/BradleyTerry2
                                             comparisons, the R MLDS data frame (without the sessions quality
                                             control rejected or excluded, unless --include says to keep them)
                                             CSV text cells beginning with = + - @ tab CR get a leading ' (no
                                             formula runs in a spreadsheet); --raw writes them as stored, for scripts
  list                                       jobs with sessions started/completed and answers stored
  link <jobId> [--playlist ID]               signed participant links that choose a playlist (needs LINK_SECRET)
${JOB_REPORT_USAGE}
${QUALITY_USAGE}
${USERS_USAGE}
${PRIVACY_USAGE}
Environment: DATABASE_URL, MEDIA_DIR, PUBLIC_URL (participant links; default http://HOST:PORT)`;

const COMMANDS = ['import', 'export', 'list', 'link', 'report', 'screen', 'decisions', 'user', 'withdraw', 'purge-identities'];

/** Base of the participant links printed after an import. */
export function publicUrl(env: NodeJS.ProcessEnv = process.env): string {
  const config = configFromEnv(env);
  // PUBLIC_URL when set (a proxy, a domain); else where the server of this environment (HOST, PORT) listens.
  return (env.PUBLIC_URL || reachableBase(config.host, config.port)).replace(/\/+$/, '');
}

/** Runs one CLI command; resolves with the exit code. Output goes to the given streams (tests capture them). */
export async function runCli(argv: string[], io: { out: Writable; err: Writable; in?: Readable } = { out: process.stdout, err: process.stderr }): Promise<number> {
  const [command, ...rest] = argv;
  const config = configFromEnv();
  const say = (line: string) => io.out.write(`${line}\n`);
  const fail = (line: string) => (io.err.write(`${line}\n`), 1);

  if (!COMMANDS.includes(command)) return fail(USAGE);
  const storage = await openStorage({ databaseUrl: config.databaseUrl, sqliteSynchronous: config.sqliteSynchronous });
  try {
    if (command === 'import') return await importCommand(storage, rest, config.mediaDir, say, fail);
    if (command === 'list') {
      const jobs = await jobSummaries(storage);
      say('job\tprotocol\tplaylists\tsessions_started\tsessions_completed\tratings\tscreenings');
      for (const j of jobs) say([j.id, j.protocol, j.playlists, j.sessionsStarted, j.sessionsCompleted, j.ratings, j.screenings].join('\t'));
      return 0;
    }
    if (command === 'link') return await linkCommand(storage, rest, config.linkSecret, say, fail);
    if (command === 'report') return await reportCommand(storage, rest, config.mediaDir, io);
    if (command === 'user') return await userCommand(storage, rest, { in: io.in ?? process.stdin, out: io.out, err: io.err });
    if (command === 'screen') return await screenCommand(storage, rest, say, fail);
    if (command === 'decisions') return await decisionsCommand(storage, rest, say, fail);
    if (command === 'withdraw') return await withdrawCommand(storage, rest, say, fail);
    if (command === 'purge-identities') return await purgeIdentitiesCommand(storage, rest, say, fail);
    return await exportCommand(storage, rest, config.mediaDir, io, fail);
  } finally {
    await storage.close();
  }
}

async function importCommand(storage: Storage, args: string[], mediaDir: string, say: (l: string) => void, fail: (l: string) => number) {
  const { values, positionals: files } = parseArgs({ args, allowPositionals: true, options: { replace: { type: 'boolean' } } });
  if (files.length === 0) return fail(USAGE);
  let code = 0;
  for (const file of files) {
    try {
      const r = await importStudy(storage, file, mediaDir, { replace: values.replace });
      say(`${r.status} job ${r.jobId} (${r.protocol}): ${r.playlists} playlists, ${r.stimuli} stimuli, ${r.mediaCopied} media files copied`);
      const links = participantLinks(publicUrl(), r.route, r.jobId);
      say(`participant link: ${publicUrl()}/${r.route}/${r.jobId}`);
      say(`  Prolific: ${links.prolific}`);
      say(`  MTurk:    ${links.mturk}`);
      say(`  lab (French): ${links.lab}`);
    } catch (error) {
      if (!(error instanceof StudyValidationError || error instanceof StudyConflictError)) throw error;
      code = fail(`import of ${file} refused: ${error.message}`);
    }
  }
  return code;
}

/** One signed link per playlist of the job (or the one asked for): `playlist_id` and its `sig`. */
async function linkCommand(storage: Storage, args: string[], secret: string | null, say: (l: string) => void, fail: (l: string) => number) {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { playlist: { type: 'string' } } });
  if (positionals.length !== 1) return fail(USAGE);
  if (!secret) return fail('set LINK_SECRET (the same value as the server\'s) to sign playlist links');
  const job = await findJob(storage, positionals[0]!);
  const protocol = job ? protocolOf(job.protocol) : null;
  if (!job || !protocol) return fail(`no job ${positionals[0]}`);
  if (job.design) return fail(`job ${job.id} has an adaptive design: each participant's playlist is made when they arrive, so no link chooses one (use ${publicUrl()}/${protocol.route}/${job.id})`);
  const playlists = await jobPlaylists(storage, job.id);
  const chosen = values.playlist === undefined ? playlists : playlists.filter((p) => String(p.id) === values.playlist);
  if (chosen.length === 0) return fail(`job ${job.id} has no playlist ${values.playlist}`);
  for (const p of chosen) {
    say(`playlist ${p.id} (#${p.position + 1}): ${publicUrl()}/${protocol.route}/${job.id}?playlist_id=${p.id}&sig=${playlistSignature(secret, job.id, p.id)}`);
  }
  return 0;
}

async function exportCommand(storage: Storage, args: string[], mediaDir: string, io: { out: Writable; err: Writable }, fail: (l: string) => number) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { format: { type: 'string', default: 'csv' }, table: { type: 'string', default: 'ratings' }, out: { type: 'string' }, include: { type: 'string', multiple: true }, 'include-rejected': { type: 'boolean' }, raw: { type: 'boolean' }, 'include-preview': { type: 'boolean' } },
  });
  const [jobId] = positionals;
  if (!jobId || positionals.length > 1) return fail(USAGE);
  const analysisFormat = (ANALYSIS_FORMATS as readonly string[]).includes(values.format!);
  if (values.format !== 'csv' && values.format !== 'json' && !analysisFormat) return fail(`--format must be csv, json, ${ANALYSIS_FORMATS.join(', ')}; got ${values.format}`);
  if (!(EXPORT_TABLES as readonly string[]).includes(values.table!)) return fail(`--table must be one of ${EXPORT_TABLES.join(', ')}`);
  if (!(await findJob(storage, jobId))) return fail(`no job ${jobId}`);
  const out = values.out ? createWriteStream(values.out) : io.out;
  let rows: number;
  try {
    rows = analysisFormat
      ? await exportAnalysisFormat(storage, jobId, values.format as AnalysisFormat, out, { mediaDir, include: parseInclusion(values.include, values['include-rejected']), raw: values.raw })
      : await exportJob(storage, jobId, { table: values.table as ExportTable, format: values.format as ExportFormat, out, raw: values.raw, includePreview: values['include-preview'] });
  } catch (error) {
    // A job of another family, a media without its MLDS level: say what, exit 1.
    if (values.out) out.end();
    return fail(`export failed: ${(error as Error).message}`);
  }
  if (values.out) {
    out.end();
    await finished(out);
    io.err.write(`${rows} ${analysisFormat ? values.format : values.table} rows written to ${values.out}\n`);
  }
  return 0;
}

/**
 * Niceness for the whole process. Linux keeps a niceness per thread, and V8's garbage-collector threads and libuv's
 * pool start before this code runs: each thread of /proc/self/task gets it (threads started later inherit it).
 */
export function lowerPriority(niceness: number): void {
  let threads: number[] = [0];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    // not Linux: the process's own call covers it
  }
  for (const thread of threads) {
    try {
      setPriority(thread, niceness);
    } catch {
      // not permitted here: same priority as the server
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // The CLI runs beside the server on the same machine (docs/cli.md): it yields the CPU to the server's
  // participants (niceness 10; raising it needs no privilege). Its writes wait for the server's, and the reverse.
  lowerPriority(10);
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? error}\n`);
      process.exit(1);
    },
  );
}
