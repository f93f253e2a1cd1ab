import type { FastifyInstance } from 'fastify';
import { HttpError, notFound } from '../errors.js';
import { isSafeMediaName, resolveMediaFile } from '../media-store.js';

/**
 * GET {prefix}/resmedias/{jobId}/{path}: the bytes of an imported media file, with its content type and length,
 * range requests (video seeking), ETag/Last-Modified, one hour of caching (a re-import may replace a file) and
 * CORS for any origin.
 */
export async function mediaRoutes(app: FastifyInstance, opts: { mediaDir: string; prefix: string }): Promise<void> {
  app.get(`${opts.prefix}/resmedias/*`, async (request, reply) => {
    // The router has already URL-decoded the wildcard, so "%2e%2e%2f" arrives here as "../".
    const name = (request.params as { '*': string })['*'];
    if (!isSafeMediaName(name)) {
      throw new HttpError(400, 'BAD_MEDIA_NAME', 'media names are {jobId}/{path} made of plain file and folder names');
    }
    const found = await resolveMediaFile(opts.mediaDir, name);
    if (!found) throw notFound(`no media ${name}`);
    // Media are public by name; when MEDIA_BASE_URL points at another origin, the app fetches them with CORS.
    reply.header('access-control-allow-origin', '*');
    return reply.sendFile(found.relativePath, found.root, { cacheControl: true, maxAge: 3600 * 1000 });
  });
}
