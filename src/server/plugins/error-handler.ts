import type { FastifyError, FastifyInstance } from 'fastify';
import { ajvErrorDetails, HttpError, transientStorageError } from '../errors.js';

const MAX_DETAILS = 50;
const CODE_OF_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

/** A storage refusal is said on stderr at most this often per error code (the request log is usually off). */
const STORAGE_REPORT_EVERY_MS = 60_000;
const storageReported = new Map<string, number>();

function reportStorageError(error: Error & { code?: unknown }): void {
  const code = String(error.code ?? error.message);
  const now = Date.now();
  if (now - (storageReported.get(code) ?? -Infinity) < STORAGE_REPORT_EVERY_MS) return;
  storageReported.set(code, now);
  console.error(`!!! GLIMPSE STORAGE: requests refused with 503, clients told to retry: ${String(error.code ?? '')} ${error.message}`);
}

/**
 * Every error becomes the JSON error body of the contract: {error, message, details?}. An HttpError that says how
 * long to wait (`retryAfterSeconds`) also gets the Retry-After header; a storage error that a retry may not meet
 * (full disk, I/O error, busy database, lost connection: errors.ts) is 503 STORAGE_UNAVAILABLE, not 500.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    const answer = (refusal: HttpError) => {
      const seconds = refusal.extra.retryAfterSeconds;
      if (typeof seconds === 'number') reply.header('retry-after', String(seconds));
      return reply.code(refusal.statusCode).send(refusal.body());
    };
    if (error instanceof HttpError) return answer(error);
    const transient = transientStorageError(error);
    if (transient) {
      request.log.error({ err: error }, 'storage unavailable');
      reportStorageError(error);
      return answer(transient);
    }
    if (error.validation) {
      const root = error.validationContext ?? 'body';
      const details = ajvErrorDetails(error.validation as never, root).slice(0, MAX_DETAILS);
      return reply.code(400).send({
        error: 'VALIDATION',
        message: `invalid ${root}: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`,
        details,
      });
    }
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) {
      request.log.error({ err: error }, 'request failed');
      return reply.code(500).send({ error: 'INTERNAL', message: 'internal server error' });
    }
    const message =
      status === 413 ? `request body is larger than this route accepts (${request.routeOptions.bodyLimit} bytes)` : error.message;
    return reply.code(status).send({ error: CODE_OF_STATUS[status] ?? 'BAD_REQUEST', message });
  });
}
