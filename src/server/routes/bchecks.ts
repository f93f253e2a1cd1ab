import type { FastifyInstance } from 'fastify';
import { BcheckBody } from '../../contract/payloads.js';
import { storeBcheck } from '../storage/participant-records.js';

/** POST /api/bchecks/: the browser check of the eligibility screen; its id becomes the playlist call's bcheckId. */
export async function bcheckRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: BcheckBody }>('/api/bchecks/', { schema: { body: BcheckBody }, bodyLimit: 16 * 1024 }, async (request, reply) => {
    return reply.code(201).send({ id: await storeBcheck(app.storage, request.body) });
  });
}
