import type { FastifyInstance } from 'fastify';
import type { LogStateSummary } from '../body/log-summary.mjs';
import { largeJsonBodies, requireSameToken, type ParsedLargeBody } from '../body/large-bodies.js';
import { forbidden } from '../errors.js';
import { rateLimited, type RateLimits } from '../plugins/security.js';
import { storeSessionLogs } from '../storage/session-logs.js';
import { findSessionByToken } from '../storage/sessions.js';
import { judgeWithLogs } from '../quality/screening.js';

/**
 * POST /api/sessionlogs/: the interaction logs of a session, stored as one JSON document per post. Up to 8 MiB,
 * parsed off the event loop (body/large-bodies.ts), stored a page at a time (storage/session-logs.ts).
 */
export async function sessionLogRoutes(app: FastifyInstance, opts: { rateLimits: RateLimits | false }): Promise<void> {
  const bodyLimit = 8 * 1024 * 1024;
  largeJsonBodies(app, 'logs', bodyLimit);
  app.post<{ Body: ParsedLargeBody }>('/api/sessionlogs/', { bodyLimit, ...rateLimited(opts.rateLimits, 'answersPerMinute') }, async (request, reply) => {
      const sessionToken = request.body.fields.sessionToken as string;
      requireSameToken(request, sessionToken);
      const session = await findSessionByToken(app.storage, sessionToken);
      if (!session) throw forbidden('sessionToken does not belong to any session');
      const id = await storeSessionLogs(app.storage, session, request.body.largeJson, request.body.fields.logSummary as LogStateSummary);
      // The logs tell whether the visual tests passed: a completed session is judged now if the code did not come
      // first, else only its visual-test outcome is revised (quality/screening.ts).
      if (session.completed_at) {
        await judgeWithLogs(app.storage, session.id, app.protocols).catch((error) => request.log.error({ err: error, session: session.id }, 'quality screening failed'));
      }
      return reply.code(201).send({ id, session_id: session.id });
  });
}
