import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { BubbleScreeningBody, IDEMPOTENCY_HEADER, RatingBody } from '../../contract/payloads.js';
import { dedupeKey, storeRating, storeScreening, type AnswerOutcome, type AnswerTarget } from '../storage/answers.js';

/** Idempotency-Key: one per logical answer, reused by every retry (contract/payloads.ts). */
const AnswerHeaders = Type.Object({
  [IDEMPOTENCY_HEADER]: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[\\x21-\\x7e]+$' })),
});
type AnswerHeaders = { [IDEMPOTENCY_HEADER]?: string };

const send = (reply: FastifyReply, outcome: AnswerOutcome) => reply.code(outcome.status).send(outcome.body);

/** Who answers what, and the key that makes a retry store nothing twice (`natural` when no header). */
function answerTarget(body: RatingBody | BubbleScreeningBody, key: string | undefined, natural: string): AnswerTarget {
  return {
    sessionId: body.session_id,
    token: body.session_token,
    stimulusId: body.stimuli_id,
    dedupeKey: dedupeKey(key, natural),
    keyed: key !== undefined,
  };
}

/** POST /api/ratings/ and POST /api/bubblescreenings/ (SPEC §3 payloads). */
export async function answerRoutes(app: FastifyInstance): Promise<void> {
  const storage = app.storage;

  app.post<{ Body: RatingBody; Headers: AnswerHeaders }>(
    '/api/ratings/',
    { schema: { body: RatingBody, headers: AnswerHeaders }, bodyLimit: 512 * 1024 },
    async (request, reply) => {
      const b = request.body;
      const target = answerTarget(b, request.headers[IDEMPOTENCY_HEADER], String(b.stimuli_id));
      return send(reply, await storeRating(storage, target, { value: b.value, nbReplay: b.nbReplay, logs: b.logs }));
    },
  );

  app.post<{ Body: BubbleScreeningBody; Headers: AnswerHeaders }>(
    '/api/bubblescreenings/',
    { schema: { body: BubbleScreeningBody, headers: AnswerHeaders }, bodyLimit: 16 * 1024 * 1024 },
    async (request, reply) => {
      const b = request.body;
      const target = answerTarget(b, request.headers[IDEMPOTENCY_HEADER], `${b.stimuli_id}:${b.screening_no}`);
      return send(reply, await storeScreening(storage, target, { screeningNo: b.screening_no, mouseLogs: JSON.stringify(b.mouse_logs) }));
    },
  );
}
