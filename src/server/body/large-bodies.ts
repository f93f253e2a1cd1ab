import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SESSION_TOKEN_HEADER } from '../../contract/payloads.js';
import { forbidden, HttpError } from '../errors.js';
import { findSessionByToken } from '../storage/sessions.js';
import { SMALL_BODY_BYTES, type LargeBodyKind } from './json-pool.js';

export type { ParsedLargeBody } from './json-pool.js';

/** Session logs and mouse logs above this need the session token in a header (sendBeacon cannot send one; its bodies are under 64 KiB). */
export const UNAUTHENTICATED_BODY_LIMIT = 1024 * 1024;

/**
 * Large bodies being received at once, in this process (issue 34: 200 slow senders of 12 MiB held 2.2 GB, and the
 * one JSON worker made a participant's 100 KB log wait 9 s). A body over SMALL_BODY_BYTES reserves the bytes its
 * Content-Length announces (its route's limit when it announces none) before a byte is read, and gives them back
 * when its answer is sent or the client goes away. The workers hold about 3 times a body while they join and parse
 * it: 96 MiB of bodies is about 300 MB of memory at most.
 */
export interface LargeBodyLimits {
  /** Bytes of large bodies in flight, per process; past it a body is refused at once (503, Retry-After). */
  budgetBytes: number;
  /** Large bodies one session may send at once (a page sends one log and one answer at a time); past it 429. */
  perSession: number;
}
export const DEFAULT_LARGE_BODY_LIMITS: LargeBodyLimits = { budgetBytes: 96 * 1024 * 1024, perSession: 2 };
/** Seconds a refused body is told to wait (the participant's page retries its answers and logs by itself). */
export const LARGE_BODY_RETRY_SECONDS = 2;

export class LargeBodyBudget {
  private inFlight = 0;
  private readonly perToken = new Map<string, number>();

  constructor(readonly limits: LargeBodyLimits) {}

  /** Bytes reserved now (tests and benchmarks). */
  get bytesInFlight(): number {
    return this.inFlight;
  }

  /** Reserves `bytes` for one body of `token`'s session (null: anonymous); returns its release, or throws the refusal. */
  reserve(bytes: number, token: string | null): () => void {
    if (token !== null && (this.perToken.get(token) ?? 0) >= this.limits.perSession) {
      throw new HttpError(429, 'TOO_MANY_UPLOADS', `this session is already sending ${this.limits.perSession} large bodies: send this one when they are done`, {
        retryAfterSeconds: LARGE_BODY_RETRY_SECONDS,
      });
    }
    if (this.inFlight + bytes > this.limits.budgetBytes) {
      throw new HttpError(503, 'BODIES_BUSY', `the server is receiving too many large bodies right now; nothing was stored: send it again in ${LARGE_BODY_RETRY_SECONDS} seconds`, {
        retryAfterSeconds: LARGE_BODY_RETRY_SECONDS,
      });
    }
    this.inFlight += bytes;
    if (token !== null) this.perToken.set(token, (this.perToken.get(token) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= bytes;
      if (token === null) return;
      const left = this.perToken.get(token)! - 1;
      if (left > 0) this.perToken.set(token, left);
      else this.perToken.delete(token);
    };
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Gives back the large-body budget this request reserved (large-bodies.ts). */
    releaseBodyBudget: (() => void) | null;
  }
}

/**
 * The routes of a scope take large JSON bodies (mouse logs, session logs, ratings with camera poses), checked
 * before a byte of the body is read:
 * - the session token header, when sent, must be a session's (a stranger's 16 MB is refused at once); a body over
 *   `unauthenticatedLimit` without it is refused (401);
 * - a body over SMALL_BODY_BYTES reserves its bytes in the process's budget (LargeBodyBudget), or is refused (503 or
 *   429, with Retry-After);
 * then the body goes chunk by chunk to a worker thread that parses and validates it (json-pool.ts).
 */
export function largeJsonBodies(scope: FastifyInstance, kind: LargeBodyKind, bodyLimit: number, unauthenticatedLimit = UNAUTHENTICATED_BODY_LIMIT): void {
  scope.removeContentTypeParser(['application/json', 'text/plain']);
  scope.addContentTypeParser(['application/json', 'text/plain'], { bodyLimit }, (request: FastifyRequest, payload: Readable) =>
    scope.jsonPool.receive(kind, payload, bodyLimit, Number(request.headers['content-length'])),
  );
  if (!scope.hasRequestDecorator('releaseBodyBudget')) scope.decorateRequest('releaseBodyBudget', null);
  scope.addHook('onRequest', async (request, reply) => {
    const length = Number(request.headers['content-length']);
    try {
      admit(request, length);
      await checkToken(request);
    } catch (error) {
      // A large body refused unread: the connection is closed after the answer, or Node would read the whole body
      // to keep the connection (12 MiB per stranger).
      if (!(length <= SMALL_BODY_BYTES)) reply.header('connection', 'close');
      throw error;
    }
  });
  const admit = (request: FastifyRequest, length: number) => {
    const token = request.headers[SESSION_TOKEN_HEADER];
    if (typeof token !== 'string' && !(length <= unauthenticatedLimit)) {
      throw new HttpError(401, 'SESSION_TOKEN_REQUIRED', `a body over ${unauthenticatedLimit} bytes (or of unknown length) needs the ${SESSION_TOKEN_HEADER} header`);
    }
    if (typeof token === 'string' && !/^[A-Za-z0-9_-]{16,128}$/.test(token)) throw forbidden(`${SESSION_TOKEN_HEADER} does not belong to any session`);
    if (length <= SMALL_BODY_BYTES || length > bodyLimit) return;
    // A refusal says when to send again (the error handler's Retry-After).
    request.releaseBodyBudget = scope.largeBodies.reserve(Number.isNaN(length) ? bodyLimit : length, typeof token === 'string' ? token : null);
  };
  // The session behind the token, read from the database: after the budget (no await before it, so arrivals at
  // once cannot all pass the check before any of them reserves).
  const checkToken = async (request: FastifyRequest) => {
    const token = request.headers[SESSION_TOKEN_HEADER];
    if (typeof token === 'string' && !(await findSessionByToken(scope.storage, token))) {
      request.releaseBodyBudget?.();
      throw forbidden(`${SESSION_TOKEN_HEADER} does not belong to any session`);
    }
  };
  const release = async (request: FastifyRequest) => request.releaseBodyBudget?.();
  scope.addHook('onResponse', release);
  scope.addHook('onRequestAbort', release);
}

/** The body's token must be the header's, when the header was sent. */
export function requireSameToken(request: FastifyRequest, bodyToken: string): void {
  const header = request.headers[SESSION_TOKEN_HEADER];
  if (typeof header === 'string' && header !== bodyToken) throw forbidden(`the body's session token is not the ${SESSION_TOKEN_HEADER} header's`);
}
