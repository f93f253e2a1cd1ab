import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { conflict, notFound } from '../errors.js';
import { completeSession, findSessionByToken, missingAnswers } from '../storage/sessions.js';

const TokenParams = Type.Object({ sessionToken: Type.String({ minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' }) });

/**
 * GET /api/sessions/token/{sessionToken}: the verification code, given only once every test stimulus has its
 * stored answer; the session is then completed and keeps the same code on every later call.
 */
export async function sessionRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { sessionToken: string } }>(
    '/api/sessions/token/:sessionToken',
    { schema: { params: TokenParams } },
    async (request, reply) => {
      const session = await findSessionByToken(app.storage.db, request.params.sessionToken);
      if (!session) throw notFound('no session with this token');
      if (session.verification_code === null) {
        const missing = await missingAnswers(app.storage.db, session);
        if (missing.length > 0) {
          const what = session.free_task ? 'mouse log' : 'rating';
          throw conflict('INCOMPLETE', `${missing.length} stimuli of this session have no stored ${what} yet`, { missing });
        }
      }
      const code = session.verification_code ?? (await completeSession(app.storage, session.id));
      return reply.header('cache-control', 'no-store').send({ verification_code: code });
    },
  );
}
