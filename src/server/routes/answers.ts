import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { BubbleScreeningBody, IDEMPOTENCY_HEADER, RatingBody } from '../../contract/payloads.js';
import { authorizeAnswer, dedupeKey, storeRating, storeScreening, type AnswerOutcome } from '../storage/answers.js';

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
      const session = await authorizeAnswer(storage, b.session_id, b.session_token, b.stimuli_id);
      const row = {
        session_id: b.session_id,
        stimulus_id: b.stimuli_id,
        dedupe_key: dedupeKey(key, String(b.stimuli_id)),
        value: b.value,
        nb_replay: b.nbReplay,
        logs: b.logs,
      };
      return send(reply, await storeRating(storage, session, row, key !== undefined));
    },
  );

  app.post<{ Body: BubbleScreeningBody; Headers: AnswerHeaders }>(
    '/api/bubblescreenings/',
    { schema: { body: BubbleScreeningBody, headers: AnswerHeaders }, bodyLimit: 16 * 1024 * 1024 },
    async (request, reply) => {
      const b = request.body;
      const key = request.headers[IDEMPOTENCY_HEADER];
      const session = await authorizeAnswer(storage, b.session_id, b.session_token, b.stimuli_id);
      const row = {
        session_id: b.session_id,
        stimulus_id: b.stimuli_id,
        screening_no: b.screening_no,
        dedupe_key: dedupeKey(key, `${b.stimuli_id}:${b.screening_no}`),
        mouse_logs: JSON.stringify(b.mouse_logs),
      };
      return send(reply, await storeScreening(storage, session, row, key !== undefined));
    },
  );
}
