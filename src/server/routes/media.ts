import type { FastifyError, FastifyInstance } from 'fastify';
import { HttpError, notFound } from '../errors.js';
import { canonicalBytesRange, parseBytesRangeHeader } from '../http-range.js';
import { isSafeMediaName, resolveMediaFile } from '../media-store.js';
import { mediaType } from '../../contract/media-types.js';

/** The error the file sender raises for a Range none of whose ranges is satisfiable (with its Content-Range). */
type SendError = FastifyError & { status?: number; headers?: Record<string, string> };

/**
 * GET {prefix}/resmedias/{jobId}/{path}: the bytes of an imported media file, with its content type and length,
 * range requests (video seeking), ETag/Last-Modified, one hour of caching (a re-import may replace a file) and
 * CORS for any origin.
 *
 * Range follows RFC 9110 (`../http-range.ts`): a header that is not a valid `bytes` range-set is ignored (200 with
 * the whole file); one valid range answers 206 (unless If-Range names another version: 200); a valid set with no
 * satisfiable range answers 416 with `Content-Range: bytes *\/{size}`.
 */
export async function mediaRoutes(app: FastifyInstance, opts: { mediaDir: string; prefix: string }): Promise<void> {
  app.get(
    `${opts.prefix}/resmedias/*`,
    {
      // The global error handler writes the JSON body but knows nothing of the sender's headers: keep the 416's.
      errorHandler: (error: SendError, request, reply) => {
        if ((error.statusCode ?? error.status) === 416) {
          const contentRange = error.headers?.['Content-Range'] ?? error.headers?.['content-range'];
          if (contentRange) reply.header('content-range', contentRange);
          const size = contentRange?.split('/')[1] ?? '?';
          throw new HttpError(416, 'RANGE_NOT_SATISFIABLE', `no range of "${request.headers.range}" starts within the media's ${size} bytes`);
        }
        throw error;
      },
    },
    async (request, reply) => {
      // The router has already URL-decoded the wildcard, so "%2e%2e%2f" arrives here as "../".
      const name = (request.params as { '*': string })['*'];
      if (!isSafeMediaName(name)) {
        throw new HttpError(400, 'BAD_MEDIA_NAME', 'media names are {jobId}/{path} made of plain file and folder names');
      }
      const found = await resolveMediaFile(opts.mediaDir, name);
      if (!found) throw notFound(`no media ${name}`);
      // The sender reads the raw request's header: hand it a valid range-set in canonical form, or none at all.
      const headers = request.raw.headers;
      if (headers.range !== undefined) {
        const specs = parseBytesRangeHeader(headers.range);
        if (specs) headers.range = canonicalBytesRange(specs);
        else delete headers.range;
      }
      // Media are public by name; when MEDIA_BASE_URL points at another origin, the app fetches them with CORS.
      reply.header('access-control-allow-origin', '*');
      // A media file never runs as a page, even opened directly: a sandbox without scripts or any resource (an SVG
      // may hold a script), and anything that is not a raster image or a video is a download, not a document.
      reply.header('content-security-policy', "sandbox; default-src 'none'; style-src 'unsafe-inline'");
      const type = mediaType(name, null);
      if (!type || type.mime === 'image/svg+xml') reply.header('content-disposition', 'attachment');
      return reply.sendFile(found.relativePath, found.root, { cacheControl: true, maxAge: 3600 * 1000 });
    },
  );
}
