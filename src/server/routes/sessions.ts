import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { conflict, notFound } from '../errors.js';
import { judgeCompletedSession } from '../quality/screening.js';
import { completeSession, findSessionByToken, missingAnswers } from '../storage/sessions.js';

const TokenParams = Type.Object({ sessionToken: Type.String({ minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' }) });

/**
 * GET /api/sessions/token/{sessionToken}: the verification code, given only once every test stimulus has its
 * stored answer; the session is then completed (and judged by quality control) and keeps the same code on every
 * later call.
 */
export async function sessionRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { sessionToken: string } }>(
    '/api/sessions/token/:sessionToken',
    { schema: { params: TokenParams } },
    async (request, reply) => {
      const session = await findSessionByToken(app.storage, request.params.sessionToken);
      if (!session) throw notFound('no session with this token');
      if (session.verification_code === null) {
        const missing = await missingAnswers(app.storage, session);
        if (missing.length > 0) {
          const what = session.free_task ? 'mouse log' : 'rating';
          throw conflict('INCOMPLETE', `${missing.length} stimuli of this session have no stored ${what} yet`, { missing });
        }
      }
      if (session.verification_code !== null) return reply.header('cache-control', 'no-store').send({ verification_code: session.verification_code });
      const code = await completeSession(app.storage, session.id);
      // The code is stored and will be given whatever the verdict: screening is never a trap for payment.
      await judgeCompletedSession(app.storage, session.id, app.protocols).catch((error) => request.log.error({ err: error, session: session.id }, 'quality screening failed'));
      return reply.header('cache-control', 'no-store').send({ verification_code: code });
    },
  );
}
