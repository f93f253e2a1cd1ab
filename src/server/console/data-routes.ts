import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { chartSpecs, csvLine, reportJson, writeReport } from '../../analysis/index.js';
import { ANALYSIS_FORMATS, analysisFormatsOf, exportAnalysisFormat, type AnalysisFormat } from '../export/analysis-formats.js';
import { protocolOf } from '../../protocols/registry.js';
import { EXPORT_TABLES, exportJob, type ExportTable } from '../export/export.js';
import { HttpError } from '../errors.js';
import { DECISION_PLATFORMS, platformDecisions, type DecisionPlatform } from '../quality/decisions.js';
import { screenJob } from '../quality/screening.js';
import { JobReportError, jobReport } from '../report/job-report.js';
import { rowsOfJob } from '../storage/console-reads.js';
import { findJob } from '../storage/jobs.js';
import { decisionRows, jobVerdicts } from '../storage/quality.js';
import { grantRole } from '../storage/users.js';
import { importStudy, StudyConflictError } from '../study/import.js';
import { StudyValidationError } from '../study/validate.js';
import { requireRole } from './auth.js';
import { unpackStudyZip } from './study-zip.js';

/**
 * The console's data routes: importing a study zip, every export format and the decisions lists (streamed, with
 * the row count up front so the page can show progress), the analysis report (HTML) and its chart specifications
 * (the page draws them with the same Vega-Lite specs). Exports and decisions hold platform ids: owners only.
 */

const JobParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) });
const ExportQuery = Type.Object(
  {
    table: Type.Optional(Type.Union(EXPORT_TABLES.map((t) => Type.Literal(t)))),
    format: Type.Optional(Type.Union(['csv', 'json', ...ANALYSIS_FORMATS].map((f) => Type.Literal(f)))),
    raw: Type.Optional(Type.Literal('1')),
    preview: Type.Optional(Type.Literal('1')),
  },
  { additionalProperties: false },
);
const DecisionParams = Type.Object({ id: JobParams.properties.id, platform: Type.Union(DECISION_PLATFORMS.map((p) => Type.Literal(p))), file: Type.String({ pattern: '^[a-z-]+\\.(csv|txt)$' }) });

const attachment = (reply: FastifyReply, name: string, type: string) => reply.header('content-disposition', `attachment; filename="${name}"`).type(type).header('cache-control', 'no-store');

export async function consoleDataRoutes(app: FastifyInstance, opts: { mediaDir: string; uploadLimitBytes: number }): Promise<void> {
  await app.register(multipart, { limits: { fileSize: opts.uploadLimitBytes, files: 1, fields: 5 } });

  // A study zip: unpacked into a fresh folder, imported by the CLI's code (validation with JSON paths, all or nothing).
  app.post('/console/api/import', async (request) => {
    const user = request.consoleUser!;
    const folder = await mkdtemp(join(tmpdir(), 'glimpse-upload-'));
    try {
      const part = await request.file();
      if (!part) throw new HttpError(400, 'NO_FILE', 'send the study as a zip file (field "study")');
      const replace = (part.fields.replace as { value?: string } | undefined)?.value === '1';
      const zip = join(folder, 'study.zip');
      await pipeline(part.file, createWriteStream(zip));
      if (part.file.truncated) throw new HttpError(413, 'PAYLOAD_TOO_LARGE', `the archive is larger than ${opts.uploadLimitBytes} bytes`);
      const studyFile = await unpackStudyZip(zip, join(folder, 'study'));
      const studyId = (JSON.parse(await readFile(studyFile, 'utf8')) as { id?: unknown }).id;
      if (typeof studyId === 'string') {
        const existing = await findJob(app.storage, studyId);
        if (existing) await requireRole(app, request, studyId, 'owner');
      }
      try {
        // The console is one source: uploading the same study again is a re-import, as with the same file in the CLI.
        // A study uploaded here starts as a draft (created so, in the import's transaction): its owner opens it when ready.
        const report = await importStudy(app.storage, studyFile, opts.mediaDir, { protocols: app.protocols, replace, source: `console:${String(studyId)}`, createdStatus: 'draft' });
        if (report.status === 'created') await grantRole(app.storage, report.jobId, user.id, 'owner');
        return report;
      } catch (error) {
        // The researcher sees the names inside their archive, never where the server unpacked it.
        const relative = await pathHider(join(folder, 'study'));
        if (error instanceof StudyValidationError) {
          throw new HttpError(400, 'STUDY_INVALID', `${error.problems.length} problem(s) in study.json`, { details: error.problems.map((p) => ({ path: p.path, message: relative(p.message) })) });
        }
        if (error instanceof StudyConflictError) throw new HttpError(409, 'STUDY_CONFLICT', relative(error.message));
        throw error;
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  app.get<{ Params: { id: string }; Querystring: { table?: ExportTable; format?: string; raw?: '1'; preview?: '1' } }>(
    '/console/api/jobs/:id/export',
    { schema: { params: JobParams, querystring: ExportQuery } },
    async (request, reply) => {
      await requireRole(app, request, request.params.id, 'owner');
      const { table = 'ratings', format = 'csv', raw, preview } = request.query;
      const analysis = (ANALYSIS_FORMATS as readonly string[]).includes(format);
      // A format for another family is refused before anything is streamed (the page offers only those that fit).
      const job = await findJob(app.storage, request.params.id);
      if (!job) throw new HttpError(404, 'NOT_FOUND', `no job ${request.params.id}`);
      const family = protocolOf(job.protocol, app.protocols)?.analysis.family;
      if (analysis && (!family || !analysisFormatsOf(family).includes(format as AnalysisFormat))) {
        throw new HttpError(400, 'FORMAT_NOT_FOR_PROTOCOL', `${format} is not a format of ${family ?? 'this'} protocols; it fits ${ANALYSIS_FORMATS.filter((f) => family && analysisFormatsOf(family).includes(f)).join(', ') || 'none'}`);
      }
      const out = new PassThrough();
      const rows = analysis ? null : await exportRowCount(app, request.params.id, table);
      attachment(reply, `${request.params.id}-${analysis ? format : table}.${format === 'json' ? 'jsonl' : 'csv'}`, format === 'json' ? 'application/x-ndjson' : 'text/csv; charset=utf-8');
      if (rows !== null) reply.header('x-total-rows', String(rows));
      const work = analysis
        ? exportAnalysisFormat(app.storage, request.params.id, format as AnalysisFormat, out, { mediaDir: opts.mediaDir, protocols: app.protocols, raw: raw === '1' })
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
    // What judging again changed (README "Console"): the verdicts before, against those now.
    const before = await jobVerdicts(app.storage, request.params.id);
    const screened = await screenJob(app.storage, request.params.id, app.protocols);
    const word = (accepted: boolean) => (accepted ? 'accepted' : 'rejected');
    const changed = screened
      .filter((s) => before.has(s.sessionId) && before.get(s.sessionId)!.accepted !== s.verdict.accepted)
      .map((s) => ({ sessionId: s.sessionId, before: word(before.get(s.sessionId)!.accepted), after: word(s.verdict.accepted) }));
    const newlyJudged = screened.filter((s) => !before.has(s.sessionId)).length;
    return {
      sessions: screened.length,
      accepted: screened.filter((s) => s.verdict.accepted).length,
      rejected: screened.filter((s) => !s.verdict.accepted).length,
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

  // The analysis report: report.html as the CLI writes it, and report.json with the chart specifications.
  const report = async (jobId: string) => {
    try {
      return await jobReport(app.storage, jobId, { mediaDir: opts.mediaDir, protocols: app.protocols });
    } catch (error) {
      if (error instanceof JobReportError) throw new HttpError(409, 'NO_REPORT', error.message);
      throw error;
    }
  };
  app.get<{ Params: { id: string } }>('/console/api/jobs/:id/report.html', { schema: { params: JobParams } }, async (request, reply) => {
    await requireRole(app, request, request.params.id, 'viewer');
    const folder = await mkdtemp(join(tmpdir(), 'glimpse-report-'));
    try {
      await writeReport(folder, await report(request.params.id));
      attachment(reply, `${request.params.id}-report.html`, 'text/html; charset=utf-8');
      return await readFile(join(folder, 'report.html'), 'utf8');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
  app.get<{ Params: { id: string } }>('/console/api/jobs/:id/report.json', { schema: { params: JobParams } }, async (request, reply) => {
    await requireRole(app, request, request.params.id, 'viewer');
    const result = await report(request.params.id);
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

/** Rewrites a message's paths under the unpacked study folder (as given and as resolved) relative to it. */
async function pathHider(studyDir: string): Promise<(text: string) => string> {
  const roots = [...new Set([studyDir, await realpath(studyDir).catch(() => studyDir)])].sort((a, b) => b.length - a.length);
  return (text) => roots.reduce((t, root) => t.split(`${root}${sep}`).join('').split(root).join('.'), text);
}
