import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { chartSpecs, csvLine, reportJson, writeReport } from '../../analysis/index.js';
import { ANALYSIS_FORMATS, exportAnalysisFormat, formatMismatch, type AnalysisFormat } from '../export/analysis-formats.js';
import { EXPORT_TABLES, exportJob, type ExportTable } from '../export/export.js';
import { HttpError } from '../errors.js';
import { DECISION_PLATFORMS, platformDecisions, type DecisionPlatform } from '../quality/decisions.js';
import { screenJob } from '../quality/screening.js';
import { JobReportError, jobReport, parseInclusion } from '../report/job-report.js';
import { rowsOfJob } from '../storage/console-reads.js';
import { findJob } from '../storage/jobs.js';
import { decisionRows, jobVerdicts } from '../storage/quality.js';
import { jobsOfUser, mayCreateStudies } from '../storage/users.js';
import { stagingPath } from '../study/staging.js';
import { importStudy, StudyConflictError } from '../study/import.js';
import { StudyValidationError } from '../study/validate.js';
import { loadStudyOffLoop, type StudyLoading } from '../study/study-off-loop.js';
import { PROTOCOLS } from '../../protocols/registry.js';
import { requireRole } from './auth.js';
import { byteCounter, DiskBudget, unpackStudyZip, type UploadLimits } from './study-zip.js';
import { requestArrived } from '../plugins/security.js';

const cannotCreate = () => new HttpError(403, 'CANNOT_CREATE_STUDIES', 'only administrators and accounts allowed to create studies may upload a new study (cli user grant EMAIL creator)');

/** The study's id, read from the unpacked study.json on the loop (a registry other than the built-in one: tests). */
async function readStudyId(studyFile: string): Promise<unknown> {
  try {
    return (JSON.parse(await readFile(studyFile, 'utf8')) as { id?: unknown } | null)?.id;
  } catch {
    return null;
  }
}

/** A study id that can name a job (null: none; the import's validation says why). */
const validStudyId = (id: unknown): string | null => (typeof id === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : null);

/**
 * The console's data routes: importing a study zip, every export format and the decisions lists (streamed, with
 * the row count up front so the page can show progress), the analysis report (HTML) and its chart specifications
 * (the page draws them with the same Vega-Lite specs). Exports and decisions hold platform ids: owners only.
 */

const JobParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) });
/** Which left-out sessions a report or an analysis export keeps (docs/quality.md). */
const IncludeValue = Type.String({ pattern: '^(rejected|excluded|all)(,(rejected|excluded|all))*$', maxLength: 40 });
const ExportQuery = Type.Object(
  {
    table: Type.Optional(Type.Union(EXPORT_TABLES.map((t) => Type.Literal(t)))),
    format: Type.Optional(Type.Union(['csv', 'json', ...ANALYSIS_FORMATS].map((f) => Type.Literal(f)))),
    raw: Type.Optional(Type.Literal('1')),
    include: Type.Optional(IncludeValue),
    preview: Type.Optional(Type.Literal('1')),
  },
  { additionalProperties: false },
);
const IncludeQuery = Type.Object({ include: Type.Optional(IncludeValue) }, { additionalProperties: false });
const DecisionParams = Type.Object({ id: JobParams.properties.id, platform: Type.Union(DECISION_PLATFORMS.map((p) => Type.Literal(p))), file: Type.String({ pattern: '^[a-z-]+\\.(csv|txt)$' }) });

const attachment = (reply: FastifyReply, name: string, type: string) => reply.header('content-disposition', `attachment; filename="${name}"`).type(type).header('cache-control', 'no-store');

export async function consoleDataRoutes(app: FastifyInstance, opts: { mediaDir: string; uploadLimits: UploadLimits }): Promise<void> {
  const limits = opts.uploadLimits;
  const budget = new DiskBudget(limits.sharedBytes);
  await app.register(multipart, { limits: { fileSize: limits.zipBytes, files: 1, fields: 5 } });

  // A study zip: unpacked into a staging folder of the media store (removed at the next start if the process dies:
  // study/staging.ts), within the upload limits and the disk budget all uploads share, then imported by the CLI's
  // code (validation with JSON paths, all or nothing; the uploader made owner in the same transaction).
  app.post('/console/api/import', async (request) => {
    const user = request.consoleUser!;
    const creator = await mayCreateStudies(app.storage, user);
    // Without the right to create studies, only a re-import over a job one owns: refused at once when one owns none.
    if (!creator && !(await jobsOfUser(app.storage, user)).some((j) => j.role === 'owner')) throw cannotCreate();
    const folder = stagingPath(opts.mediaDir, 'upload');
    const lease = budget.lease();
    // No answer names a server path: the staging folder is written as "upload:".
    const scrub = (text: string) => text.split(folder).join('upload:');
    let loading: StudyLoading | null = null;
    try {
      await mkdir(folder, { recursive: true });
      const part = await request.file();
      if (!part) throw new HttpError(400, 'NO_FILE', 'send the study as a zip file (field "study")');
      const replace = (part.fields.replace as { value?: string } | undefined)?.value === '1';
      const zip = join(folder, 'study.zip');
      await pipeline(part.file, byteCounter(lease.take), createWriteStream(zip));
      if (part.file.truncated) throw new HttpError(413, 'PAYLOAD_TOO_LARGE', `the archive is larger than ${limits.zipBytes} bytes`);
      // Unpacking and importing a large study can take longer than the idle timeout.
      requestArrived(request);
      const studyFile = await unpackStudyZip(zip, join(folder, 'study'), limits, lease.take);
      await rm(zip);
      // Parsed and checked off the event loop (a study.json may be hundreds of MB), with the built-in protocols; the
      // id comes first, for the uploader's role.
      loading = app.protocols === PROTOCOLS ? loadStudyOffLoop(studyFile) : null;
      const studyId = validStudyId(loading ? await loading.id : await readStudyId(studyFile)) ?? '';
      const checked = loading?.loaded;
      const existing = studyId ? await findJob(app.storage, studyId) : undefined;
      if (existing) await requireRole(app, request, studyId, 'owner');
      else if (!creator) throw cannotCreate();
      try {
        // The console is one source: uploading the same study again is a re-import, as with the same file in the CLI.
        // A study uploaded here starts as a draft (created so, in the import's transaction): its owner opens it when ready.
        return await importStudy(app.storage, studyFile, opts.mediaDir, { protocols: app.protocols, replace, source: `console:${studyId}`, createdStatus: 'draft', ownerId: user.id, ...(checked ? { load: () => checked } : {}) });
      } catch (error) {
        if (error instanceof StudyValidationError) {
          const total = error.problems.length + error.more;
          const details = error.problems.map((p) => ({ path: p.path, message: scrub(p.message) }));
          // Past 100 problems the stimuli are not checked further (validate.ts): the count is then a lower bound.
          const count = error.checkedAll ? `${total} problem(s)` : `more than ${total - 1} problems`;
          const more = !error.checkedAll
            ? ` (the first ${error.problems.length} are listed; the stimuli after them were not checked)`
            : error.more > 0
              ? ` (the first ${error.problems.length} are listed; ${error.more} more not shown)`
              : '';
          throw new HttpError(400, 'STUDY_INVALID', `${count} in study.json${more}`, { details, more: error.more, checkedAll: error.checkedAll });
        }
        if (error instanceof StudyConflictError) throw new HttpError(409, 'STUDY_CONFLICT', scrub(error.message));
        throw error;
      }
    } catch (error) {
      if (error instanceof HttpError && error.message.includes(folder)) throw new HttpError(error.statusCode, error.code, scrub(error.message), error.extra);
      throw error;
    } finally {
      // A refused uploader's study is not checked further.
      loading?.cancel();
      await rm(folder, { recursive: true, force: true });
      lease.release();
    }
  });

  app.get<{ Params: { id: string }; Querystring: { table?: ExportTable; format?: string; raw?: '1'; include?: string; preview?: '1' } }>(
    '/console/api/jobs/:id/export',
    { schema: { params: JobParams, querystring: ExportQuery } },
    async (request, reply) => {
      await requireRole(app, request, request.params.id, 'owner');
      const { table = 'ratings', format = 'csv', raw, include, preview } = request.query;
      const analysis = (ANALYSIS_FORMATS as readonly string[]).includes(format);
      // Checked before the answer starts streaming: a format the job's protocol has no votes for is a 409, not a cut stream.
      if (analysis) {
        const job = (await findJob(app.storage, request.params.id))!;
        const family = app.protocolOf(job)?.analysis.family ?? 'unknown';
        const mismatch = formatMismatch(format as AnalysisFormat, { id: job.id, protocol: job.protocol, family });
        if (mismatch) throw new HttpError(409, 'FORMAT_NOT_FOR_JOB', mismatch.replace('--format ', 'format '));
      }
      const out = new PassThrough();
      const rows = analysis ? null : await exportRowCount(app, request.params.id, table);
      attachment(reply, `${request.params.id}-${analysis ? format : table}.${format === 'json' ? 'jsonl' : 'csv'}`, format === 'json' ? 'application/x-ndjson' : 'text/csv; charset=utf-8');
      if (rows !== null) reply.header('x-total-rows', String(rows));
      const work = analysis
        ? exportAnalysisFormat(app.storage, request.params.id, format as AnalysisFormat, out, { mediaDir: opts.mediaDir, protocols: app.protocols, raw: raw === '1', include: parseInclusion(include ? [include] : []) })
        : exportJob(app.storage, request.params.id, { table, format: format as 'csv' | 'json', out, protocols: app.protocols, raw: raw === '1', includePreview: preview === '1' });
      work.then(
        () => out.end(),
        (error: unknown) => out.destroy(error as Error),
      );
      return reply.send(out);
    },
  );

  app.post<{ Params: { id: string } }>('/console/api/jobs/:id/screen', { schema: { params: JobParams } }, async (request) => {
    await requireRole(app, request, request.params.id, 'owner');
    // What judging again changed (docs/console.md): the verdicts before, against those now.
    const before = await jobVerdicts(app.storage, request.params.id);
    const screened = await screenJob(app.storage, request.params.id, app.protocols);
    // Both verdicts, before against now: what judging again changed.
    const verdictWords = (v: { approved: boolean; included: boolean }) => ({ payment: v.approved ? 'approve' : 'reject', analysis: v.included ? 'include' : 'exclude' });
    const changed = screened
      .filter((s) => {
        const old = before.get(s.sessionId);
        return old !== undefined && (old.approved !== s.verdict.approved || old.included !== s.verdict.included);
      })
      .map((s) => ({ sessionId: s.sessionId, before: verdictWords(before.get(s.sessionId)!), after: verdictWords(s.verdict) }));
    const newlyJudged = screened.filter((s) => !before.has(s.sessionId)).length;
    return {
      sessions: screened.length,
      accepted: screened.filter((s) => s.verdict.approved).length,
      rejected: screened.filter((s) => !s.verdict.approved).length,
      included: screened.filter((s) => s.verdict.included).length,
      newlyJudged,
      changed,
      unchanged: screened.length - newlyJudged - changed.length,
    };
  });

  app.get<{ Params: { id: string; platform: DecisionPlatform } }>(
    '/console/api/jobs/:id/decisions/:platform',
    { schema: { params: Type.Object({ id: JobParams.properties.id, platform: DecisionParams.properties.platform }) } },
    async (request) => {
      await requireRole(app, request, request.params.id, 'owner');
      const job = (await findJob(app.storage, request.params.id))!;
      const decisions = platformDecisions(await decisionRows(app.storage, job.id), request.params.platform, job.quality);
      return { approved: decisions.approved, rejected: decisions.rejected, skipped: decisions.skipped, files: decisions.files.map((f) => ({ name: f.name, rows: f.rows.length })) };
    },
  );

  app.get<{ Params: { id: string; platform: DecisionPlatform; file: string } }>(
    '/console/api/jobs/:id/decisions/:platform/:file',
    { schema: { params: DecisionParams } },
    async (request, reply) => {
      await requireRole(app, request, request.params.id, 'owner');
      const job = (await findJob(app.storage, request.params.id))!;
      const file = platformDecisions(await decisionRows(app.storage, job.id), request.params.platform, job.quality).files.find((f) => f.name === request.params.file);
      if (!file) throw new HttpError(404, 'NOT_FOUND', `no decisions file ${request.params.file} for ${request.params.platform}`);
      const lines = [...(file.header ? [file.header] : []), ...file.rows];
      attachment(reply, `${job.id}-${request.params.platform}-${file.name}`, file.name.endsWith('.txt') ? 'text/plain; charset=utf-8' : 'text/csv; charset=utf-8');
      return file.name.endsWith('.txt') ? lines.map((l) => `${l.join(',')}\n`).join('') : lines.map((l) => csvLine(l)).join('');
    },
  );

  // The analysis report: report.html as the CLI writes it, and report.json with the chart specifications;
  // `?include=rejected,excluded` keeps those sessions, as the CLI's --include.
  const report = async (jobId: string, include: string | undefined) => {
    try {
      return await jobReport(app.storage, jobId, { mediaDir: opts.mediaDir, protocols: app.protocols, include: parseInclusion(include ? [include] : []) });
    } catch (error) {
      if (error instanceof JobReportError) throw new HttpError(409, 'NO_REPORT', error.message);
      throw error;
    }
  };
  type ReportRequest = { Params: { id: string }; Querystring: { include?: string } };
  app.get<ReportRequest>('/console/api/jobs/:id/report.html', { schema: { params: JobParams, querystring: IncludeQuery } }, async (request, reply) => {
    await requireRole(app, request, request.params.id, 'viewer');
    const folder = await mkdtemp(join(tmpdir(), 'glimpse-report-'));
    try {
      await writeReport(folder, await report(request.params.id, request.query.include));
      attachment(reply, `${request.params.id}-report.html`, 'text/html; charset=utf-8');
      return await readFile(join(folder, 'report.html'), 'utf8');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
  app.get<ReportRequest>('/console/api/jobs/:id/report.json', { schema: { params: JobParams, querystring: IncludeQuery } }, async (request, reply) => {
    await requireRole(app, request, request.params.id, 'viewer');
    const result = await report(request.params.id, request.query.include);
    reply.type('application/json').header('cache-control', 'no-store');
    return `{"report":${reportJson(result)},"charts":${JSON.stringify(chartSpecs(result))}}`;
  });
}

const STORED_TABLES: Partial<Record<ExportTable, 'ratings' | 'screenings' | 'session_logs'>> = { ratings: 'ratings', screenings: 'screenings', sessionlogs: 'session_logs' };

/** The rows an export will have (the page's progress bar); -1 for presentations, one row per step, not known before reading. */
async function exportRowCount(app: FastifyInstance, jobId: string, table: ExportTable): Promise<number> {
  const stored = STORED_TABLES[table];
  return stored ? rowsOfJob(app.storage, jobId, stored) : -1;
}
