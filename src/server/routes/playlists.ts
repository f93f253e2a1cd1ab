import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { PlaylistResponse } from '../../contract/playlist.js';
import { PLAYLIST_PATH_OF_PROTOCOL, parsePlatform } from '../../contract/protocols.js';
import { HttpError, notFound } from '../errors.js';
import { mediaOf, playlistStimulus } from '../playlist-view.js';
import { findJob, playlistStimuli, type StoredJob } from '../storage/jobs.js';
import { createSession, hasCompleted, leastLoadedPlaylist, participantKey, type PlatformIdentity } from '../storage/sessions.js';
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
  },
  { additionalProperties: true },
);
type PlaylistQuery = Static<typeof PlaylistQuery>;

export async function playlistRoutes(app: FastifyInstance, opts: { sessionLeaseMinutes: number }): Promise<void> {
  const storage = app.storage;

  for (const path of new Set(Object.values(PLAYLIST_PATH_OF_PROTOCOL))) {
    app.get<{ Params: { id: string }; Querystring: PlaylistQuery }>(
      `/api/${path}/:id`,
      { schema: { params: JobIdParams, querystring: PlaylistQuery } },
      async (request, reply) => {
        const job = await findJob(storage.db, request.params.id);
        if (!job || PLAYLIST_PATH_OF_PROTOCOL[job.protocol] !== path) {
          throw notFound(job ? `job ${job.id} is a ${job.protocol} job: its playlist is /api/${PLAYLIST_PATH_OF_PROTOCOL[job.protocol]}/${job.id}` : `no job ${request.params.id}`);
        }
        const answer = await assignPlaylist(job, request.query);
        return reply.header('cache-control', 'no-store').send(answer);
      },
    );
  }

  async function assignPlaylist(job: StoredJob, query: PlaylistQuery): Promise<PlaylistResponse> {
    const identity: PlatformIdentity = {
      platform: parsePlatform(query.platform),
      workerId: query.workerId || undefined,
      assignmentId: query.assignmentId || undefined,
      hitId: query.hitId || undefined,
      turkSubmitTo: query.turkSubmitTo || undefined,
      PROLIFIC_PID: query.PROLIFIC_PID || undefined,
      STUDY_ID: query.STUDY_ID || undefined,
      SESSION_ID: query.SESSION_ID || undefined,
      email: query.email || undefined,
    };
    const requested = query.playlist_id === undefined ? null : Number(query.playlist_id);
    if (requested !== null) {
      const owned = await storage.db.selectFrom('playlists').select('id').where('id', '=', requested).where('job_id', '=', job.id).executeTakeFirst();
      if (!owned) throw notFound(`job ${job.id} has no playlist ${requested}`);
    }
    const bcheckId = query.bcheckId === undefined ? null : Number(query.bcheckId);
    if (bcheckId !== null && !(await storage.db.selectFrom('bchecks').select('id').where('id', '=', bcheckId).executeTakeFirst())) {
      throw notFound(`no browser check ${bcheckId}`);
    }
    const key = participantKey(identity);
    if (key && (await hasCompleted(storage.db, job.id, key))) {
      throw new HttpError(403, 'ALREADY_COMPLETED', 'this participant has already completed this job', { flag: 'ALREADY_COMPLETED' });
    }

    let session: { id: number; token: string } | null = null;
    let playlistId: number;
    if (identity.assignmentId === MTURK_PREVIEW) {
      // A worker previewing the HIT sees the task but must not take a slot.
      playlistId = requested ?? (await leastLoadedPlaylist(storage.db, job.id, opts.sessionLeaseMinutes))!;
    } else {
      const created = await createSession(storage, {
        jobId: job.id,
        playlistId: requested,
        identity,
        bcheckId,
        freeTask: job.protocol === 'bubble' && query.ft === '1',
        leaseMinutes: opts.sessionLeaseMinutes,
      });
      session = created;
      playlistId = created.playlistId;
    }

    const stimuli = await playlistStimuli(storage.db, playlistId);
    const view = (training: boolean) =>
      stimuli.filter((s) => s.isTraining === training).map((s) => playlistStimulus(job.protocol, job.id, s));
    const stimulis = view(false);
    const stimulis_training = view(true);
    return {
      jobId: job.id,
      playlistId,
      stimulis,
      stimulis_training,
      mediaRessources: mediaOf([...stimulis_training, ...stimulis]),
      session_id: session?.id ?? null,
      sessionToken: session?.token ?? null,
      type: job.protocol,
    };
  }
}
