import type { FastifyError, FastifyInstance } from 'fastify';
import { ajvErrorDetails, HttpError } from '../errors.js';

const MAX_DETAILS = 50;
const CODE_OF_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

/** Every error becomes the JSON error body of the contract: {error, message, details?}. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    if (error instanceof HttpError) {
      return reply.code(error.statusCode).send(error.body());
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
