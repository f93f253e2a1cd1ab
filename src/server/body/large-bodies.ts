import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SESSION_TOKEN_HEADER } from '../../contract/payloads.js';
import { forbidden, HttpError } from '../errors.js';
import { findSessionByToken } from '../storage/sessions.js';
import type { LargeBodyKind } from './json-pool.js';

export type { ParsedLargeBody } from './json-pool.js';

/** Bodies above this need the session token in a header, checked before the body is read. */
export const UNAUTHENTICATED_BODY_LIMIT = 1024 * 1024;

/**
 * The routes of a scope take large JSON bodies (mouse logs, session logs): the session token header, when sent, is
 * checked before a byte of the body is read (a stranger's 16 MB is refused at once), a body over 1 MiB without it
 * is refused, and the body goes chunk by chunk to a worker thread that parses and validates it (json-pool.ts). The
 * page sends the header; navigator.sendBeacon cannot, and its bodies are small.
 */
export function largeJsonBodies(scope: FastifyInstance, kind: LargeBodyKind, bodyLimit: number): void {
  scope.removeContentTypeParser(['application/json', 'text/plain']);
  scope.addContentTypeParser(['application/json', 'text/plain'], { bodyLimit }, (request: FastifyRequest, payload: Readable) =>
    scope.jsonPool.receive(kind, payload, bodyLimit, Number(request.headers['content-length'])),
  );
  scope.addHook('onRequest', async (request) => {
    const token = request.headers[SESSION_TOKEN_HEADER];
    if (typeof token !== 'string') {
      const length = Number(request.headers['content-length']);
      if (!(length <= UNAUTHENTICATED_BODY_LIMIT)) {
        throw new HttpError(401, 'SESSION_TOKEN_REQUIRED', `a body over ${UNAUTHENTICATED_BODY_LIMIT} bytes (or of unknown length) needs the ${SESSION_TOKEN_HEADER} header`);
      }
      return;
    }
    if (!/^[A-Za-z0-9_-]{16,128}$/.test(token) || !(await findSessionByToken(scope.storage, token))) throw forbidden(`${SESSION_TOKEN_HEADER} does not belong to any session`);
  });
}

/** The body's token must be the header's, when the header was sent. */
export function requireSameToken(request: FastifyRequest, bodyToken: string): void {
  const header = request.headers[SESSION_TOKEN_HEADER];
  if (typeof header === 'string' && header !== bodyToken) throw forbidden(`the body's session token is not the ${SESSION_TOKEN_HEADER} header's`);
}
