import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../errors.js';
import { findJob, jobResponse } from '../storage/jobs.js';

export const JobIdParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) }, { additionalProperties: false });

export async function jobRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { id: string } }>('/api/jobs/:id', { schema: { params: JobIdParams } }, async (request, reply) => {
    const job = await findJob(app.storage, request.params.id);
    if (!job) throw notFound(`no job ${request.params.id}`);
    // A re-import may change the job: always revalidate.
    return reply.header('cache-control', 'no-cache').send(jobResponse(job));
  });
}
