import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { RESUME_TOKEN_HEADER, type PlaylistResponse, type VisitResponse } from '../../contract/playlist.js';
import { parsePlatform } from '../../contract/platforms.js';
import type { ProtocolDefinition } from '../../protocols/types.js';
import { HttpError, notFound } from '../errors.js';
import { mediaNameOf } from '../media-store.js';
import { findJob, jobHasPlaylist, jobPlaylists, playlistStimuli, type StoredJob } from '../storage/jobs.js';
import { ownPlaylistMaker } from '../adaptive/arrival.js';
import { jobMediaLoadSizes } from '../storage/studies.js';
import { bcheckExists } from '../storage/participant-records.js';
import { AlreadyCompletedError, answeredStimuli, JobNotOpenError, leastLoadedPlaylist, openSession, participantStanding, StudyFullError, type OpenedSession, type PlatformIdentity } from '../storage/sessions.js';
import { logVisit, markVisitStarted } from '../storage/visits.js';
import { playlistSignatureValid } from '../playlist-links.js';
import { endPreviewSessionAt, previewLinkExpiry } from '../storage/previews.js';
import { rateLimited, type RateLimits } from '../plugins/security.js';
import { allocationPreference, freshRunningSums } from '../quality/screening.js';
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
    // The visit this page logged (POST /api/visits/{id}): the playlist call that starts its session marks it started.
    visit: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{22}$' })),
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

/**
 * A paused job takes no new participant (sessions in progress finish); a closed one neither; a draft (a console
 * upload not opened yet) is not over, it has not begun: its researchers run it with a preview link.
 */
const notOpen = (status: string) => {
  if (status === 'paused') return new HttpError(403, 'STUDY_PAUSED', 'this study is paused: it takes no new participant for now');
  if (status === 'draft') return new HttpError(403, 'STUDY_NOT_OPEN_YET', 'this study is not open yet: its researchers try it with a preview link from the console');
  return new HttpError(403, 'STUDY_CLOSED', 'this study is closed: it takes no new participant');
};

const alreadyCompleted = () => new HttpError(403, 'ALREADY_COMPLETED', 'this participant has already completed this job', { flag: 'ALREADY_COMPLETED' });

const studyFull = () => new HttpError(403, 'STUDY_FULL', 'this study has all the participants it needs; no session was created');

const PlaylistHeaders = Type.Object({ [RESUME_TOKEN_HEADER]: Type.Optional(Type.String({ minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' })) });
type PlaylistHeaders = { [RESUME_TOKEN_HEADER]?: string };

/** Who arrives and how (the query of a visit or a playlist call), checked before anything is stored. */
interface Arrival {
  preview: boolean;
  /** A preview link's expiry: its session takes answers until then. */
  previewUntil: string | null;
  identity: PlatformIdentity;
  /** The playlist the (signed) link names, or null. */
  requested: number | null;
  bcheckId: number | null;
}

export async function playlistRoutes(app: FastifyInstance, opts: { sessionLeaseMinutes: number; linkSecret: string | null; rateLimits: RateLimits | false }): Promise<void> {
  // Each call may create a session or a visit: limited per client address.
  const limit = rateLimited(opts.rateLimits, 'sessionsPerMinute');
  const { storage, protocols } = app;

  // The visit (docs/data-safety.md "Participant continuity"): the page calls it when it shows the eligibility checks.
  // It tells a repeat participant, a paused or closed study and a session to resume at once, and logs a new visitor's
  // visit, which holds nothing: the session starts with the playlist call made once the checks are passed.
  app.post<{ Params: { id: string }; Querystring: PlaylistQuery; Headers: PlaylistHeaders }>(
    '/api/visits/:id',
    { schema: { params: JobIdParams, querystring: PlaylistQuery, headers: PlaylistHeaders }, bodyLimit: 1024, ...limit },
    async (request, reply) => {
      const job = await findJob(storage, request.params.id);
      if (!job) throw notFound(`no job ${request.params.id}`);
      const { preview, identity } = await checkArrival(job, request.query);
      const standing = await participantStanding(storage, { jobId: job.id, identity, resumeToken: request.headers[RESUME_TOKEN_HEADER] ?? null, preview });
      if (standing === 'completed') throw alreadyCompleted();
      const answer: VisitResponse = { visit: null, resumable: standing === 'unfinished' };
      // A session in progress goes on whatever the status (as openSession gives it back).
      if (answer.resumable) return reply.header('cache-control', 'no-store').send(answer);
      if (!preview && job.status !== 'open') throw notOpen(job.status);
      // A researcher's preview and an MTurk preview are nobody's visit: nothing is logged.
      if (preview || identity.assignmentId === MTURK_PREVIEW) return reply.header('cache-control', 'no-store').send(answer);
      answer.visit = await logVisit(storage, job.id, identity.platform);
      return reply.code(201).header('cache-control', 'no-store').send(answer);
    },
  );

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
        const visit = request.query.visit;
        if (visit !== undefined && answer.session_id !== null) {
          // Only the console's "visited" count depends on it: a failure here must not fail the session's start.
          await markVisitStarted(storage, job.id, visit).catch((error: unknown) => request.log.warn({ err: error }, 'visit not marked started'));
        }
        return reply.header('cache-control', 'no-store').send(answer);
      },
    );
  }

  /**
   * The arrival's checks, shared by the visit and the playlist call: a valid preview link, platform ids that are ids,
   * a playlist chosen only by a signed link or a job that allows it, a known browser check; a draft takes only
   * previews.
   */
  async function checkArrival(job: StoredJob, query: PlaylistQuery): Promise<Arrival> {
    // A researcher's preview link (console): a marked session, whatever the job's status, with no platform ids.
    const preview = query.preview !== undefined;
    const previewUntil = preview ? await previewLinkExpiry(storage, job.id, query.preview!) : null;
    if (preview && previewUntil === null) {
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
    if (requested !== null && job.design) {
      throw new HttpError(403, 'PLAYLIST_CHOICE_NOT_ALLOWED', `job ${job.id} has an adaptive design: each participant's playlist is made when they arrive, and a link cannot name one`);
    }
    if (requested !== null && job.fields.allowPlaylistChoice !== true && !playlistSignatureValid(opts.linkSecret, job.id, requested, query.sig)) {
      throw new HttpError(403, 'PLAYLIST_CHOICE_NOT_ALLOWED', `job ${job.id} takes playlist_id only from a signed link (cli link) or when its study sets allowPlaylistChoice`);
    }
    if (requested !== null && !(await jobHasPlaylist(storage, job.id, requested))) throw notFound(`job ${job.id} has no playlist ${requested}`);
    const bcheckId = query.bcheckId === undefined ? null : Number(query.bcheckId);
    if (bcheckId !== null && !(await bcheckExists(storage, bcheckId))) throw notFound(`no browser check ${bcheckId}`);
    if (job.status === 'draft' && !preview) throw notOpen(job.status);
    return { preview, previewUntil, identity, requested, bcheckId };
  }

  async function assignPlaylist(job: StoredJob, protocol: ProtocolDefinition, query: PlaylistQuery, resumeToken: string | null): Promise<PlaylistResponse<unknown>> {
    const { preview, previewUntil, identity, requested, bcheckId } = await checkArrival(job, query);
    let session: OpenedSession | null = null;
    let playlistId: number;
    // A job its precision rule closed is full: a target of 0 refuses every new session and resumes the running ones.
    const targetAccepted = job.precisionReachedAt ? 0 : job.quality.targetAcceptedPerPlaylist;
    if (identity.assignmentId === MTURK_PREVIEW) {
      if (job.status !== 'open') throw notOpen(job.status);
      // A worker previewing the HIT sees the task but must not take a slot (nor accept a HIT that is full). An
      // adaptive design makes no playlist for a preview: it shows the study's own (training and checks).
      if (job.design) {
        if (targetAccepted === 0) throw studyFull();
        playlistId = (await jobPlaylists(storage, job.id))[0]!.id;
      } else {
        const chosen = (await leastLoadedPlaylist(storage, job.id, opts.sessionLeaseMinutes, requested))!;
        if (targetAccepted !== undefined && chosen.load >= targetAccepted) throw studyFull();
        playlistId = chosen.id;
      }
    } else {
      // A job that allocates by intervals names the playlist for a new participant (a link's own choice stands; a
      // resumed session keeps its playlist whatever is named). Read without the arrival's lock: if that playlist
      // filled meanwhile, the usual choice is made instead.
      const preferred = requested === null && !preview ? await allocationPreference(storage, job, app.protocols) : null;
      // An adaptive design: a new participant's own playlist, made under the arrival's lock from the running sums.
      if (job.design) await freshRunningSums(storage, job, app.protocols);
      const makeOwnPlaylist = job.design ? await ownPlaylistMaker(storage, job, protocol) : undefined;
      const open = (playlistId: number | null) =>
        openSession(storage, {
          jobId: job.id,
          playlistId,
          resumeToken,
          identity,
          bcheckId,
          freeTask: protocol.sessionOptions?.(query).freeTask ?? false,
          leaseMinutes: opts.sessionLeaseMinutes,
          targetAccepted,
          acceptsNew: job.status === 'open',
          preview,
          makeOwnPlaylist,
        });
      try {
        session = await open(preferred ?? requested).catch((error: unknown) => {
          if (preferred !== null && error instanceof StudyFullError) return open(null);
          throw error;
        });
      } catch (error) {
        if (error instanceof StudyFullError) throw studyFull();
        if (error instanceof JobNotOpenError) throw notOpen(job.status);
        if (error instanceof AlreadyCompletedError) throw alreadyCompleted();
        throw error;
      }
      playlistId = session.playlistId;
      // A preview session takes answers as long as the link it came from works (a resumed one: the latest link's).
      if (preview) await endPreviewSessionAt(storage, session.id, previewUntil!);
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
