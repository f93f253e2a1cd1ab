import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { RESUME_TOKEN_HEADER, type PlaylistResponse } from '../../contract/playlist.js';
import { parsePlatform } from '../../contract/platforms.js';
import type { ProtocolDefinition } from '../../protocols/types.js';
import { HttpError, notFound } from '../errors.js';
import { mediaNameOf } from '../media-store.js';
import { findJob, jobHasPlaylist, playlistStimuli, type StoredJob } from '../storage/jobs.js';
import { jobMediaLoadSizes } from '../storage/studies.js';
import { bcheckExists } from '../storage/participant-records.js';
import { AlreadyCompletedError, answeredStimuli, JobNotOpenError, leastLoadedPlaylist, openSession, StudyFullError, type OpenedSession, type PlatformIdentity } from '../storage/sessions.js';
import { playlistSignatureValid } from '../playlist-links.js';
import { previewLinkValid } from '../storage/previews.js';
import { rateLimited, type RateLimits } from '../plugins/security.js';
import { JobIdParams } from './jobs.js';

const MTURK_PREVIEW = 'ASSIGNMENT_ID_NOT_AVAILABLE';
const DigitsId = Type.String({ pattern: '^[0-9]{1,9}$' });
const Text = Type.String({ maxLength: 500 });

/**
 * The client passes its whole query string through (SPEC §7), so other parameters (vl, phone, dd, ...) are
 * allowed and ignored; the ones read here are type-checked. Numeric ids arrive as digit strings.
 */
const PlaylistQuery = Type.Object(
  {
    platform: Type.Optional(Text),
    playlist_id: Type.Optional(DigitsId),
    bcheckId: Type.Optional(DigitsId),
    email: Type.Optional(Type.String({ maxLength: 320 })),
    assignmentId: Type.Optional(Text),
    hitId: Type.Optional(Text),
    workerId: Type.Optional(Text),
    turkSubmitTo: Type.Optional(Text),
    PROLIFIC_PID: Type.Optional(Text),
    STUDY_ID: Type.Optional(Text),
    SESSION_ID: Type.Optional(Text),
    ft: Type.Optional(Text),
    sig: Type.Optional(Type.String({ maxLength: 100 })),
    preview: Type.Optional(Type.String({ minLength: 43, maxLength: 43, pattern: '^[A-Za-z0-9_-]+$' })),
  },
  { additionalProperties: true },
);
type PlaylistQuery = Static<typeof PlaylistQuery>;

/** Platform ids look like this (letters, digits, _ and -), e-mails like an address; both trimmed first. */
const PLATFORM_ID = /^[A-Za-z0-9_-]{1,128}$/;
const EMAIL = /^[^\s@]{1,200}@[^\s@]{1,200}$/;

/** The query's platform ids, trimmed; 400 BAD_PLATFORM_ID for one that is not an id (a formula, markup, spaces). */
function platformIds(query: PlaylistQuery) {
  const checked = new Map<string, string | undefined>();
  for (const field of ['workerId', 'assignmentId', 'hitId', 'PROLIFIC_PID', 'STUDY_ID', 'SESSION_ID', 'email'] as const) {
    const value = query[field]?.trim() || undefined;
    if (value !== undefined && !(field === 'email' ? EMAIL : PLATFORM_ID).test(value)) {
      const what = field === 'email' ? 'an e-mail address' : 'letters, digits, _ and - (at most 128)';
      throw new HttpError(400, 'BAD_PLATFORM_ID', `${field} must be ${what}`, { details: [{ path: `querystring.${field}`, message: `must be ${what}` }] });
    }
    checked.set(field, value);
  }
  return (field: 'workerId' | 'assignmentId' | 'hitId' | 'PROLIFIC_PID' | 'STUDY_ID' | 'SESSION_ID' | 'email') => checked.get(field);
}

/** A paused job takes no new participant (sessions in progress finish); a closed or draft one neither. */
const notOpen = (status: string) =>
  status === 'paused'
    ? new HttpError(403, 'STUDY_PAUSED', 'this study is paused: it takes no new participant for now')
    : new HttpError(403, 'STUDY_CLOSED', 'this study is closed: it takes no new participant');

const studyFull = () => new HttpError(403, 'STUDY_FULL', 'this study has all the participants it needs; no session was created');

const PlaylistHeaders = Type.Object({ [RESUME_TOKEN_HEADER]: Type.Optional(Type.String({ minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' })) });
type PlaylistHeaders = { [RESUME_TOKEN_HEADER]?: string };

export async function playlistRoutes(app: FastifyInstance, opts: { sessionLeaseMinutes: number; linkSecret: string | null; rateLimits: RateLimits | false }): Promise<void> {
  // Each call may create a session: limited per client address.
  const limit = rateLimited(opts.rateLimits, 'sessionsPerMinute');
  const { storage, protocols } = app;

  for (const path of new Set(Object.values(protocols).map((p) => p.playlistPath))) {
    app.get<{ Params: { id: string }; Querystring: PlaylistQuery; Headers: PlaylistHeaders }>(
      `/api/${path}/:id`,
      { schema: { params: JobIdParams, querystring: PlaylistQuery, headers: PlaylistHeaders }, ...limit },
      async (request, reply) => {
        const job = await findJob(storage, request.params.id);
        const protocol = job ? app.protocolOf(job) : null;
        if (!job || !protocol || protocol.playlistPath !== path) {
          throw notFound(job ? `job ${job.id} is a ${job.protocol} job: its playlist is /api/${protocol?.playlistPath}/${job.id}` : `no job ${request.params.id}`);
        }
        const answer = await assignPlaylist(job, protocol, request.query, request.headers[RESUME_TOKEN_HEADER] ?? null);
        return reply.header('cache-control', 'no-store').send(answer);
      },
    );
  }

  async function assignPlaylist(job: StoredJob, protocol: ProtocolDefinition, query: PlaylistQuery, resumeToken: string | null): Promise<PlaylistResponse<unknown>> {
    // A researcher's preview link (console): a marked session, whatever the job's status, with no platform ids.
    const preview = query.preview !== undefined;
    if (preview && !(await previewLinkValid(storage, job.id, query.preview!))) {
      throw new HttpError(403, 'PREVIEW_EXPIRED', 'this preview link is not valid (any more): ask the console for a new one');
    }
    const id = platformIds(preview ? {} : query);
    const identity: PlatformIdentity = {
      platform: parsePlatform(query.platform),
      workerId: id('workerId'),
      assignmentId: id('assignmentId'),
      hitId: id('hitId'),
      turkSubmitTo: query.turkSubmitTo || undefined,
      PROLIFIC_PID: id('PROLIFIC_PID'),
      STUDY_ID: id('STUDY_ID'),
      SESSION_ID: id('SESSION_ID'),
      email: id('email'),
    };
    const requested = query.playlist_id === undefined ? null : Number(query.playlist_id);
    if (requested !== null && job.fields.allowPlaylistChoice !== true && !playlistSignatureValid(opts.linkSecret, job.id, requested, query.sig)) {
      throw new HttpError(403, 'PLAYLIST_CHOICE_NOT_ALLOWED', `job ${job.id} takes playlist_id only from a signed link (cli link) or when its study sets allowPlaylistChoice`);
    }
    if (requested !== null && !(await jobHasPlaylist(storage, job.id, requested))) throw notFound(`job ${job.id} has no playlist ${requested}`);
    const bcheckId = query.bcheckId === undefined ? null : Number(query.bcheckId);
    if (bcheckId !== null && !(await bcheckExists(storage, bcheckId))) throw notFound(`no browser check ${bcheckId}`);
    let session: OpenedSession | null = null;
    let playlistId: number;
    const targetAccepted = job.quality.targetAcceptedPerPlaylist;
    if (job.status === 'draft' && !preview) throw notOpen(job.status);
    if (identity.assignmentId === MTURK_PREVIEW) {
      if (job.status !== 'open') throw notOpen(job.status);
      // A worker previewing the HIT sees the task but must not take a slot (nor accept a HIT that is full).
      const chosen = (await leastLoadedPlaylist(storage, job.id, opts.sessionLeaseMinutes, requested))!;
      if (targetAccepted !== undefined && chosen.load >= targetAccepted) throw studyFull();
      playlistId = chosen.id;
    } else {
      try {
        session = await openSession(storage, {
          jobId: job.id,
          playlistId: requested,
          resumeToken,
          identity,
          bcheckId,
          freeTask: protocol.sessionOptions?.(query).freeTask ?? false,
          leaseMinutes: opts.sessionLeaseMinutes,
          targetAccepted,
          acceptsNew: job.status === 'open',
          preview,
        });
      } catch (error) {
        if (error instanceof StudyFullError) throw studyFull();
        if (error instanceof JobNotOpenError) throw notOpen(job.status);
        if (error instanceof AlreadyCompletedError) {
          throw new HttpError(403, 'ALREADY_COMPLETED', 'this participant has already completed this job', { flag: 'ALREADY_COMPLETED' });
        }
        throw error;
      }
      playlistId = session.playlistId;
    }

    const stimuli = await playlistStimuli(storage, playlistId);
    const mediaName = (path: string) => mediaNameOf(job.id, path);
    const view = (training: boolean) =>
      stimuli.filter((s) => s.isTraining === training).map((s) => protocol.stimulus.view(s.id, s.spec, mediaName));
    // Every media name once, in order of first use (the client loads them in this order): training first.
    const training = stimuli.filter((s) => s.isTraining);
    const test = stimuli.filter((s) => !s.isTraining);
    const paths = [...new Set([...training, ...test].flatMap((s) => protocol.stimulus.media(s.spec).map(([, path]) => path)))];
    const sizes = await jobMediaLoadSizes(storage, job.id);
    return {
      jobId: job.id,
      playlistId,
      stimulis: view(false),
      stimulis_training: view(true),
      mediaRessources: paths.map(mediaName),
      mediaSizes: paths.map((path) => sizes.get(path) ?? null),
      session_id: session?.id ?? null,
      sessionToken: session?.token ?? null,
      type: job.protocol,
      resumed: session?.resumed ?? false,
      answered_stimuli: session?.resumed ? await answeredStimuli(storage, session.id) : [],
    };
  }
}
