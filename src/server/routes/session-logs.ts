import type { FastifyInstance } from 'fastify';
import { SessionLogsBody } from '../../contract/payloads.js';
import { forbidden } from '../errors.js';
import { findSessionByToken } from '../storage/sessions.js';
import { nowIso } from '../storage/types.js';

/** POST /api/sessionlogs/: the interaction logs of a session, stored as one JSON document per post. */
export async function sessionLogRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: SessionLogsBody }>(
    '/api/sessionlogs/',
    { schema: { body: SessionLogsBody }, bodyLimit: 8 * 1024 * 1024 },
    async (request, reply) => {
      const { sessionToken, ...logs } = request.body;
      const session = await findSessionByToken(app.storage.db, sessionToken);
      if (!session) throw forbidden('sessionToken does not belong to any session');
      const { id } = await app.storage.write((trx) =>
        trx
          .insertInto('session_logs')
          .values({ session_id: session.id, body: JSON.stringify(logs), created_at: nowIso() })
          .returning('id')
          .executeTakeFirstOrThrow(),
      );
      return reply.code(201).send({ id, session_id: session.id });
    },
  );
}
