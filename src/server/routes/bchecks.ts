import type { FastifyInstance } from 'fastify';
import { BcheckBody } from '../../contract/payloads.js';
import { nowIso } from '../storage/types.js';

export async function bcheckRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: BcheckBody }>('/api/bchecks/', { schema: { body: BcheckBody }, bodyLimit: 16 * 1024 }, async (request, reply) => {
    const { id } = await app.storage.write((trx) =>
      trx.insertInto('bchecks').values({ ...request.body, created_at: nowIso() }).returning('id').executeTakeFirstOrThrow(),
    );
    return reply.code(201).send({ id });
  });
}
