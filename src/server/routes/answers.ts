import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { type BubbleScreeningBody, IDEMPOTENCY_HEADER, type RatingBody } from '../../contract/payloads.js';
import { protocolOf } from '../../protocols/registry.js';
import type { ProtocolDefinition } from '../../protocols/types.js';
import { SMALL_BODY_BYTES } from '../body/json-pool.js';
import { largeJsonBodies, requireSameToken, type ParsedLargeBody } from '../body/large-bodies.js';
import { HttpError, notFound } from '../errors.js';
import { rateLimited, type RateLimits } from '../plugins/security.js';
import { ANSWER_QUOTA, presentationKey, storeRating, storeScreening, type AnswerOutcome, type AnswerTarget } from '../storage/answers.js';
import { sessionProtocol } from '../storage/sessions.js';

/** Idempotency-Key: one per logical answer, reused by every retry (contract/payloads.ts). */
const AnswerHeaders = Type.Object({
  [IDEMPOTENCY_HEADER]: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[\\x21-\\x7e]+$' })),
});
type AnswerHeaders = { [IDEMPOTENCY_HEADER]?: string };

const jsonOrNull = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

const send = (reply: FastifyReply, outcome: AnswerOutcome) => reply.code(outcome.status).send(outcome.body);

const badAnswer = (message: string) => new HttpError(400, 'BAD_ANSWER', message);

/**
 * A rating's body: under 16 KiB in the common case, up to this with the camera poses of a 3D object
 * (docs/3d-objects.md: at most MAX_CAMERA_SAMPLES samples, 10 minutes of inspection at 165 Hz; a sample as Chromium
 * prints its numbers is about 120 bytes, so 100,000 of them are about 12 MB).
 */
export const RATING_BODY_BYTES = 12 * 1024 * 1024;
/** A bubble play's mouse log (docs/choices.md "Bubble"). */
const SCREENING_BODY_BYTES = 16 * 1024 * 1024;

/** POST /api/ratings/ and POST /api/bubblescreenings/ (SPEC §3 payloads), under the per-address answer limit. */
export async function answerRoutes(app: FastifyInstance, opts: { rateLimits: RateLimits | false }): Promise<void> {
  const storage = app.storage;
  const limit = rateLimited(opts.rateLimits, 'answersPerMinute');
  // A session's job never changes: its protocol is looked up once per session and kept (every node keeps its own;
  // nothing here needs to agree across processes).
  const protocols = new Map<number, ProtocolDefinition>();
  async function protocolOfSession(sessionId: number): Promise<ProtocolDefinition> {
    let protocol = protocols.get(sessionId);
    if (!protocol) {
      const name = await sessionProtocol(storage, sessionId);
      if (name === null) throw notFound(`no session ${sessionId}`);
      protocol = protocolOf(name, app.protocols) ?? undefined;
      if (!protocol) throw notFound(`session ${sessionId} belongs to a ${name} job, which this server does not know`);
      if (protocols.size >= 100_000) protocols.delete(protocols.keys().next().value!);
      protocols.set(sessionId, protocol);
    }
    return protocol;
  }

  const target = (body: Pick<RatingBody, 'session_id' | 'session_token' | 'stimuli_id'>, key: string | undefined, play: number | null): AnswerTarget => ({
    sessionId: body.session_id,
    token: body.session_token,
    stimulusId: body.stimuli_id,
    dedupeKey: presentationKey(body.stimuli_id, play),
    idempotencyKey: key ?? null,
  });

  // A rating is small; a body over SMALL_BODY_BYTES (a 3D step's camera poses, a long `logs` text, or junk) needs
  // the session token header before a byte is read, and is parsed and validated in a worker (body/large-bodies.ts):
  // no anonymous body costs the event loop more than a small one does. The camera poses come back as one JSON text.
  await app.register(async (scope) => {
    largeJsonBodies(scope, 'rating', RATING_BODY_BYTES, SMALL_BODY_BYTES);
    scope.post<{ Body: ParsedLargeBody; Headers: AnswerHeaders }>('/api/ratings/', { schema: { headers: AnswerHeaders }, bodyLimit: RATING_BODY_BYTES, ...limit }, async (request, reply) => {
      const b = request.body.fields as Omit<RatingBody, 'views'>;
      requireSameToken(request, b.session_token);
      const protocol = await protocolOfSession(b.session_id);
      if (!protocol.answers.ratingValues.includes(b.value)) {
        throw badAnswer(`value ${b.value} is not a ${protocol.name} answer: it must be one of ${protocol.answers.ratingValues.join(', ')}`);
      }
      if (protocol.answers.ratingPerPlay && b.nbReplay >= ANSWER_QUOTA.maxPlays) throw new HttpError(429, 'ANSWER_QUOTA', `a stimulus is played at most ${ANSWER_QUOTA.maxPlays} times`);
      const views = request.body.largeJson.length > 0 ? request.body.largeJson.toString('utf8') : null;
      const rating = { value: b.value, nbReplay: b.nbReplay, logs: b.logs, timing: jsonOrNull(b.timing), views };
      return send(reply, await storeRating(storage, target(b, request.headers[IDEMPOTENCY_HEADER], protocol.answers.ratingPerPlay ? b.nbReplay : null), rating));
    });
  });

  // Mouse logs are large: parsed and validated off the event loop (body/json-pool.ts), after the token header check.
  await app.register(async (scope) => {
    largeJsonBodies(scope, 'screening', SCREENING_BODY_BYTES);
    scope.post<{ Body: ParsedLargeBody; Headers: AnswerHeaders }>('/api/bubblescreenings/', { schema: { headers: AnswerHeaders }, bodyLimit: SCREENING_BODY_BYTES, ...limit }, async (request, reply) => {
      const b = request.body.fields as Omit<BubbleScreeningBody, 'mouse_logs'>;
      requireSameToken(request, b.session_token);
      const protocol = await protocolOfSession(b.session_id);
      if (!protocol.answers.screenings) throw badAnswer(`a ${protocol.name} session records no mouse logs`);
      const screening = { screeningNo: b.screening_no, mouseLogs: request.body.largeJson, timing: jsonOrNull(b.timing) };
      return send(reply, await storeScreening(storage, target(b, request.headers[IDEMPOTENCY_HEADER], b.screening_no), screening));
    });
  });
}
