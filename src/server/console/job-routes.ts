import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { protocolOf } from '../../protocols/registry.js';
import { verdictsOf } from '../../quality/reasons.js';
import type { RuleOutcome } from '../../quality/rules.js';
import type { ProtocolDefinition } from '../../protocols/types.js';
import { HttpError, notFound } from '../errors.js';
import { participantPage, sessionTokenInJob, type ParticipantFilter } from '../storage/console-reads.js';
import { findJob, jobSummaries, type StoredJob } from '../storage/jobs.js';
import { jobsOfUser, setJobStatus, type JobRole } from '../storage/users.js';
import { withdraw } from '../storage/withdrawals.js';
import { CONSOLE_COOKIE, requireRole, streamStillAllowed } from './auth.js';
import { guardSending } from '../plugins/security.js';
import { LiveStatsHub, type LiveStreamLimits } from './live-stats.js';
import { failedRules, jobStats } from './stats.js';
import { analysisFormatsOf } from '../export/analysis-formats.js';
import { createPreviewLink } from '../storage/previews.js';
import { participantLinks } from '../playlist-links.js';
import { jobMedia } from '../storage/studies.js';
import { mediaType } from '../../contract/media-types.js';

/**
 * The console's job routes: the jobs list, a job's live statistics (JSON and server-sent events), its participants,
 * and the owner's controls (open, pause, close, withdraw), each with an explicit confirmation in the body.
 */

const JobParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) });
const StatusBody = Type.Object({ status: Type.Union([Type.Literal('open'), Type.Literal('paused'), Type.Literal('closed')]), confirm: Type.Literal(true) }, { additionalProperties: false });
const WithdrawBody = Type.Object({ sessionId: Type.Integer({ minimum: 1 }), confirm: Type.Literal(true) }, { additionalProperties: false });
const ParticipantsQuery = Type.Object(
  {
    page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
    pageSize: Type.Optional(Type.String({ pattern: '^(10|25|50|100)$' })),
    status: Type.Optional(Type.Union(['all', 'running', 'completed', 'accepted', 'rejected', 'abandoned'].map((s) => Type.Literal(s)))),
    q: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

/** How often the live page's statistics are read again (any node answers from the database). */
export const LIVE_INTERVAL_MS = 2000;

/** The node's live statistics hub: each job's statistics computed once per interval for all the streams watching it. */
export function liveStatsHub(app: FastifyInstance, leaseMinutes: number, limits: LiveStreamLimits): LiveStatsHub {
  const hub = new LiveStatsHub(
    async (jobId) => {
      const job = await findJob(app.storage, jobId);
      return job ? JSON.stringify(await jobStats(app.storage, job, leaseMinutes, app.protocols)) : null;
    },
    LIVE_INTERVAL_MS,
    limits,
    (error) => app.log.error({ err: error }, 'live statistics failed'),
  );
  app.addHook('onClose', () => hub.close());
  return hub;
}

/** A researcher's preview links (docs/console.md): the study as a Prolific (English) or a lab (French) participant. */
function previewLinks(publicUrl: string, route: string, jobId: string, token: string) {
  const base = `${publicUrl}/${route}/${jobId}`;
  return { prolific: `${base}?platform=prolific&preview=${token}`, lab: `${base}?platform=nantes&preview=${token}` };
}

/**
 * The downloads that fit a protocol: the long tables (screenings only for the bubble test, camera poses only for a
 * job with 3D objects) and its analysis format.
 */
function downloadsOf(protocol: ProtocolDefinition | null, hasModels: boolean): string[] {
  const mouseLogs = protocol !== null && 'screenings' in protocol.analysis;
  const tables = ['ratings.csv', 'ratings.jsonl', ...(mouseLogs ? ['screenings.jsonl'] : []), 'sessionlogs.jsonl', 'presentations.csv', ...(hasModels ? ['views.jsonl'] : [])];
  return protocol ? [...tables, ...analysisFormatsOf(protocol.analysis.family).map((f) => `${f}.csv`)] : tables;
}

export async function consoleJobRoutes(app: FastifyInstance, opts: { leaseMinutes: number; publicUrl: (host: string | undefined) => string; liveStats: LiveStatsHub }): Promise<void> {
  const statsOf = (job: StoredJob) => jobStats(app.storage, job, opts.leaseMinutes, app.protocols);
  const jobOrNotFound = async (id: string) => {
    const job = await findJob(app.storage, id);
    if (!job) throw notFound(`no job ${id}`);
    return job;
  };

  app.get('/console/api/jobs', async (request) => {
    const visible = new Map((await jobsOfUser(app.storage, request.consoleUser!)).map((j) => [j.id, j.role]));
    const summaries = (await jobSummaries(app.storage)).filter((j) => visible.has(j.id));
    const url = opts.publicUrl(request.headers.host);
    return Promise.all(
      summaries.map(async (summary) => {
        const job = (await findJob(app.storage, summary.id))!;
        const stats = await statsOf(job);
        const route = protocolOf(job.protocol, app.protocols)?.route ?? job.protocol;
        return {
          id: job.id,
          protocol: job.protocol,
          role: visible.get(job.id) as JobRole,
          status: stats.status,
          sessions: stats.sessions,
          links: participantLinks(url, route, job.id),
        };
      }),
    );
  });

  app.get<{ Params: { id: string } }>('/console/api/jobs/:id', { schema: { params: JobParams } }, async (request) => {
    const role = await requireRole(app, request, request.params.id, 'viewer');
    const job = await jobOrNotFound(request.params.id);
    const protocol = protocolOf(job.protocol, app.protocols);
    const { welcomeMsg: _welcome, instructionMsg: _instructions, ...settings } = job.fields as unknown as Record<string, unknown>;
    return {
      id: job.id,
      protocol: job.protocol,
      role,
      question: job.fields.question,
      quality: job.quality,
      links: participantLinks(opts.publicUrl(request.headers.host), protocol?.route ?? job.protocol, job.id),
      completionUrl: job.fields.completionUrl ?? null,
      // The job's fields as the study file gave them (the long HTML texts left out), for the settings table.
      settings,
      downloads: downloadsOf(protocol ?? null, [...(await jobMedia(app.storage, job.id)).keys()].some((path) => mediaType(path, null)?.kind === 'model')),
      stats: await statsOf(job),
    };
  });

  // A preview link (owners): the study run as a participant whatever its status, in a marked session that counts
  // nowhere (balancing, statistics, screening, exports unless asked). Valid for a day.
  app.post<{ Params: { id: string } }>('/console/api/jobs/:id/preview', { schema: { params: JobParams } }, async (request) => {
    await requireRole(app, request, request.params.id, 'owner');
    const job = await jobOrNotFound(request.params.id);
    const token = await createPreviewLink(app.storage, job.id, request.consoleUser!.id);
    return { links: previewLinks(opts.publicUrl(request.headers.host), protocolOf(job.protocol, app.protocols)?.route ?? job.protocol, job.id, token) };
  });

  // Server-sent events: the statistics again whenever they change (computed once per job every LIVE_INTERVAL_MS for
  // all the streams watching it, live-stats.ts), a comment as a heartbeat otherwise, until the page goes away or its
  // session or role no longer allows it (checked before every event).
  const hub = opts.liveStats;
  app.get<{ Params: { id: string } }>('/console/api/jobs/:id/events', { schema: { params: JobParams } }, async (request, reply) => {
    await requireRole(app, request, request.params.id, 'viewer');
    await jobOrNotFound(request.params.id);
    const user = request.consoleUser!;
    const token = request.cookies[CONSOLE_COOKIE];
    const raw = reply.raw;
    const stop = hub.watch(request.params.id, {
      userId: user.id,
      write: (text) => raw.write(text),
      stillAllowed: () => streamStillAllowed(app, token, user.id, request.params.id),
      end: () => raw.end(),
    });
    reply.hijack();
    guardSending(request);
    raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    request.raw.on('close', stop);
  });

  app.get<{ Params: { id: string }; Querystring: { page?: string; pageSize?: string; status?: string; q?: string } }>(
    '/console/api/jobs/:id/participants',
    { schema: { params: JobParams, querystring: ParticipantsQuery } },
    async (request) => {
      const role = await requireRole(app, request, request.params.id, 'viewer');
      const page = Number(request.query.page ?? 1);
      const pageSize = Number(request.query.pageSize ?? 25);
      const cutoff = new Date(Date.now() - opts.leaseMinutes * 60_000).toISOString();
      const { total, rows } = await participantPage(app.storage, request.params.id, {
        filter: (request.query.status ?? 'all') as ParticipantFilter,
        search: request.query.q,
        // Viewers search by session id only: platform ids are the owners' to see.
        searchIds: role === 'owner',
        runningSince: cutoff,
        page,
        pageSize,
      });
      return {
        total,
        page,
        pageSize,
        rows: rows.map((r) => ({
          sessionId: r.id,
          playlist: r.position + 1,
          platform: r.platform,
          startedAt: r.created_at,
          completedAt: r.completed_at,
          state: r.completed_at ? 'completed' : r.created_at > cutoff ? 'running' : 'abandoned',
          ...participantVerdicts(r.outcomes),
          preview: r.preview === 1,
          answers: r.answers,
          // Platform ids only for owners.
          ids: role === 'owner' ? { workerId: r.worker_id, assignmentId: r.assignment_id, prolificPid: r.prolific_pid, submissionId: r.prolific_session_id, email: r.email } : null,
        })),
      };
    },
  );

  app.post<{ Params: { id: string }; Body: { status: 'open' | 'paused' | 'closed'; confirm: true } }>(
    '/console/api/jobs/:id/status',
    { schema: { params: JobParams, body: StatusBody } },
    async (request) => {
      await requireRole(app, request, request.params.id, 'owner');
      await jobOrNotFound(request.params.id);
      await setJobStatus(app.storage, request.params.id, request.body.status);
      request.log.info({ job: request.params.id, status: request.body.status, by: request.consoleUser!.email }, 'job status changed');
      return { id: request.params.id, status: request.body.status };
    },
  );

  app.post<{ Params: { id: string }; Body: { sessionId: number; confirm: true } }>(
    '/console/api/jobs/:id/withdraw',
    { schema: { params: JobParams, body: WithdrawBody } },
    async (request) => {
      await requireRole(app, request, request.params.id, 'owner');
      const token = await sessionTokenInJob(app.storage, request.params.id, request.body.sessionId);
      if (token === null) throw new HttpError(404, 'NOT_FOUND', `job ${request.params.id} has no session ${request.body.sessionId}`);
      const { deleted } = await withdraw(app.storage, { by: 'token', value: token }, { jobId: request.params.id });
      return { withdrawn: request.body.sessionId, deleted };
    },
  );
}

/** A session's two verdicts and its failed rules (the page says them in words, in its language); nulls when not judged. */
function participantVerdicts(outcomes: string | null) {
  if (!outcomes) return { payment: null, analysis: null, failed: [] };
  const parsed = JSON.parse(outcomes) as RuleOutcome[];
  const { approved, included } = verdictsOf(parsed);
  return {
    payment: approved ? 'approve' : 'reject',
    analysis: included ? 'include' : 'exclude',
    failed: failedRules(parsed),
  };
}
