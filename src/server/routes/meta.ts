import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

// The version comes from package.json (SPEC §7: the client compares it with its own, 1.8.9).
const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

export async function metaRoutes(app: FastifyInstance): Promise<void> {
  app.get('/meta.json', async (_request, reply) => reply.header('cache-control', 'no-cache').send({ version }));
}
