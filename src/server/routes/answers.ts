import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BubbleScreeningBody, IDEMPOTENCY_HEADER, RatingBody } from '../../contract/payloads.js';
import { protocolOf } from '../../protocols/registry.js';
import type { ProtocolDefinition } from '../../protocols/types.js';
import { parseSmallJson, SMALL_BODY_BYTES } from '../body/json-pool.js';
import { largeJsonBodies, requireSameToken, type ParsedLargeBody } from '../body/large-bodies.js';
import { HttpError, notFound } from '../errors.js';
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
 * A rating's body: 16 KiB in the common case, up to this with the camera poses of a 3D object (README "3D
 * objects": at most MAX_CAMERA_SAMPLES samples, about 80 bytes each in JSON; 10 minutes of inspection at 165 Hz).
 */
export const RATING_BODY_BYTES = 12 * 1024 * 1024;

/** POST /api/ratings/ and POST /api/bubblescreenings/ (SPEC §3 payloads). */
export async function answerRoutes(app: FastifyInstance): Promise<void> {
  const storage = app.storage;
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

  const target = (body: RatingBody | BubbleScreeningBody, key: string | undefined, play: number | null): AnswerTarget => ({
    sessionId: body.session_id,
    token: body.session_token,
    stimulusId: body.stimuli_id,
    dedupeKey: presentationKey(body.stimuli_id, play),
    idempotencyKey: key ?? null,
  });

  // A rating is small; a body over SMALL_BODY_BYTES (a long `logs` text, or junk) is parsed and validated in a worker,
  // so no anonymous body costs the event loop more than a small one does.
  // The camera poses of a large body are validated and serialised in the worker: the event loop gets them as one
  // string, kept beside the parsed fields until the handler stores it.
  const viewsOfLargeBody = new WeakMap<object, string>();
  await app.register(async (scope) => {
    scope.removeContentTypeParser(['application/json', 'text/plain']);
    scope.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'buffer', bodyLimit: RATING_BODY_BYTES }, async (_request: FastifyRequest, body: Buffer) => {
      if (body.length <= SMALL_BODY_BYTES) return parseSmallJson(body.toString('utf8'));
      const { fields, largeJson } = await scope.jsonPool.parse('rating', body);
      if (largeJson.length > 0) viewsOfLargeBody.set(fields, largeJson.toString('utf8'));
      return fields;
    });
    scope.post<{ Body: RatingBody; Headers: AnswerHeaders }>(
      '/api/ratings/',
      { schema: { body: RatingBody, headers: AnswerHeaders }, bodyLimit: RATING_BODY_BYTES },
      async (request, reply) => {
        const b = request.body;
        const protocol = await protocolOfSession(b.session_id);
        if (!protocol.answers.ratingValues.includes(b.value)) {
          throw badAnswer(`value ${b.value} is not a ${protocol.name} answer: it must be one of ${protocol.answers.ratingValues.join(', ')}`);
        }
        if (protocol.answers.ratingPerPlay && b.nbReplay >= ANSWER_QUOTA.maxPlays) throw new HttpError(429, 'ANSWER_QUOTA', `a stimulus is played at most ${ANSWER_QUOTA.maxPlays} times`);
        const rating = { value: b.value, nbReplay: b.nbReplay, logs: b.logs, timing: jsonOrNull(b.timing), views: viewsOfLargeBody.get(b) ?? jsonOrNull(b.views) };
        return send(reply, await storeRating(storage, target(b, request.headers[IDEMPOTENCY_HEADER], protocol.answers.ratingPerPlay ? b.nbReplay : null), rating));
      },
    );
  });

  // Mouse logs are large: parsed and validated off the event loop (body/json-pool.ts), after the token header check.
  await app.register(async (scope) => {
    largeJsonBodies(scope, 'screening', 16 * 1024 * 1024);
    scope.post<{ Body: ParsedLargeBody; Headers: AnswerHeaders }>('/api/bubblescreenings/', { schema: { headers: AnswerHeaders } }, async (request, reply) => {
      const b = request.body.fields as Omit<BubbleScreeningBody, 'mouse_logs'>;
      requireSameToken(request, b.session_token);
      const protocol = await protocolOfSession(b.session_id);
      if (!protocol.answers.screenings) throw badAnswer(`a ${protocol.name} session records no mouse logs`);
      const screening = { screeningNo: b.screening_no, mouseLogs: request.body.largeJson, timing: jsonOrNull(b.timing) };
      return send(reply, await storeScreening(storage, target(b as BubbleScreeningBody, request.headers[IDEMPOTENCY_HEADER], b.screening_no), screening));
    });
  });
}
