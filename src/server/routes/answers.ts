import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { BubbleScreeningBody, IDEMPOTENCY_HEADER, RatingBody } from '../../contract/payloads.js';
import { dedupeKey, storeRating, storeScreening, type AnswerOutcome } from '../storage/answers.js';

/** Idempotency-Key: one per logical answer, reused by every retry (contract/payloads.ts). */
const AnswerHeaders = Type.Object({
  [IDEMPOTENCY_HEADER]: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[\\x21-\\x7e]+$' })),
});
type AnswerHeaders = { [IDEMPOTENCY_HEADER]?: string };

const send = (reply: FastifyReply, outcome: AnswerOutcome) => reply.code(outcome.status).send(outcome.body);

/** POST /api/ratings/ and POST /api/bubblescreenings/ (SPEC §3 payloads). */
export async function answerRoutes(app: FastifyInstance): Promise<void> {
  const storage = app.storage;

  app.post<{ Body: RatingBody; Headers: AnswerHeaders }>(
    '/api/ratings/',
    { schema: { body: RatingBody, headers: AnswerHeaders }, bodyLimit: 512 * 1024 },
    async (request, reply) => {
      const b = request.body;
      const key = request.headers[IDEMPOTENCY_HEADER];
      const target = {
        sessionId: b.session_id,
        token: b.session_token,
        stimulusId: b.stimuli_id,
        dedupeKey: dedupeKey(key, String(b.stimuli_id)),
        keyed: key !== undefined,
      };
      return send(reply, await storeRating(storage, target, { value: b.value, nbReplay: b.nbReplay, logs: b.logs }));
    },
  );

  app.post<{ Body: BubbleScreeningBody; Headers: AnswerHeaders }>(
    '/api/bubblescreenings/',
    { schema: { body: BubbleScreeningBody, headers: AnswerHeaders }, bodyLimit: 16 * 1024 * 1024 },
    async (request, reply) => {
      const b = request.body;
      const key = request.headers[IDEMPOTENCY_HEADER];
      const target = {
        sessionId: b.session_id,
        token: b.session_token,
        stimulusId: b.stimuli_id,
        dedupeKey: dedupeKey(key, `${b.stimuli_id}:${b.screening_no}`),
        keyed: key !== undefined,
      };
      return send(reply, await storeScreening(storage, target, { screeningNo: b.screening_no, mouseLogs: JSON.stringify(b.mouse_logs) }));
    },
  );
}
