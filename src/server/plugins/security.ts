import helmet from 'helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from '../errors.js';

/**
 * The server's own defences (docs/security.md), registered before the routes:
 * - security headers by helmet: a Content-Security-Policy the app passes without inline script (its
 *   scripts and styles are files; media may come from MEDIA_BASE_URL's origin; the MTurk submit form may post to
 *   MTurk), `frame-ancestors 'none'`, `nosniff`, a same-origin referrer policy;
 * - state-changing requests from a foreign origin refused (403 FOREIGN_ORIGIN): a page elsewhere cannot post
 *   browser checks, consents or answers through a participant's browser (`no-cors` text/plain posts included).
 *   Requests without an Origin header (scripts, curl) are not browsers' cross-site requests and pass;
 * - rate limits (@fastify/rate-limit, per client address, in memory: each node counts its own) on what creates
 *   rows without a session: playlist calls (sessions), consent forms, and the anonymous answer routes. Routes opt in with `config.rateLimit`;
 * - the idle timeout (Fastify's connectionTimeout, Node's server.timeout) guards a request's arrival and its
 *   answer's sending (a client that stops reading), not the server's own work between them: Node would otherwise
 *   end a socket whose answer is still being worked on ("socket hang up" at the client, nothing acknowledged), a
 *   mouse log waiting its turn in the paged queue at saturation. Node sets it again for the socket's next request.
 */

export interface RateLimits {
  /** Playlist calls (each may create a session) per client address per minute; 0 = no limit. */
  sessionsPerMinute: number;
  /** Consent forms per client address per minute; 0 = no limit. */
  consentsPerMinute: number;
  /** Answers (ratings, mouse logs, session logs) per client address per minute; 0 = no limit. */
  answersPerMinute: number;
}

/**
 * Generous for a lab of 30 computers behind one address, each reloading a few times, or answering every 2 seconds
 * with its logs and retries (docs/security.md "Rate limits"). An IPv6 client is counted by its /64
 * (@fastify/rate-limit's default).
 */
export const DEFAULT_RATE_LIMITS: RateLimits = { sessionsPerMinute: 300, consentsPerMinute: 60, answersPerMinute: 2400 };

const MTURK_SUBMIT = ['https://www.mturk.com', 'https://workersandbox.mturk.com'];

/** (A request injected in process, app.inject, has a socket of light-my-request's without timeouts.) */
const setIdleTimeout = (request: FastifyRequest, ms: number) => request.raw.socket?.setTimeout?.(ms);

/** The request has arrived whole: no idle timeout while the server works on its answer (an upload read by its handler calls it itself). */
export function requestArrived(request: FastifyRequest): void {
  setIdleTimeout(request, 0);
}

/** The idle timeout again, as an answer starts to be sent (a hijacked reply, which skips onSend, calls it itself). */
export function guardSending(request: FastifyRequest): void {
  setIdleTimeout(request, request.server.server.timeout);
}

export async function registerSecurity(app: FastifyInstance, opts: { mediaBaseUrl: string; rateLimits: RateLimits | false }): Promise<void> {
  app.addHook('preHandler', (request, _reply, next) => {
    if (request.raw.complete) requestArrived(request);
    next();
  });
  app.addHook('onSend', (request, _reply, payload, next) => {
    guardSending(request);
    next(null, payload);
  });
  const mediaOrigin = /^https?:\/\//.test(opts.mediaBaseUrl) ? [new URL(opts.mediaBaseUrl).origin] : [];
  // helmet's middleware, built once: @fastify/helmet builds it again on every request (parsing the policy each
  // time), which was 8 % of the server's CPU per rating in bench/api.
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        // 'wasm-unsafe-eval' compiles WebAssembly only (no JS eval): the meshopt decoder of compressed 3D objects.
        scriptSrc: ["'self'", "'wasm-unsafe-eval'"],
        // React sets style properties through the CSSOM, which CSP allows; no inline <style> or style="" markup.
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'blob:', ...mediaOrigin],
        // data: too: PixiJS probes the browser's video alpha handling with a tiny inline WebM before the first video.
        mediaSrc: ["'self'", 'blob:', 'data:', ...mediaOrigin],
        // The media are downloaded with progress (fetch), then handed to the stage as blobs; three.js's glTF loader
        // reads a 3D object's buffers and textures back from blob: (and embedded data:) URLs with fetch.
        connectSrc: ["'self'", 'blob:', 'data:', ...mediaOrigin],
        fontSrc: ["'self'", 'data:'],
        workerSrc: ["'self'", 'blob:'],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'", ...MTURK_SUBMIT],
        frameAncestors: ["'none'"],
      },
    },
    // Media from a CDN must stay embeddable: no cross-origin embedder policy.
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-site' },
    referrerPolicy: { policy: 'same-origin' },
    hsts: false, // HTTPS is the reverse proxy's business; it sets HSTS where it terminates TLS.
  });
  app.addHook('onRequest', (request, reply, next) => securityHeaders(request.raw, reply.raw, (error?: unknown) => next(error as Error | undefined)));

  app.addHook('onRequest', async (request) => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return;
    if (foreignOrigin(request)) throw new HttpError(403, 'FOREIGN_ORIGIN', 'state-changing requests are accepted from this site\'s own pages only');
  });

  if (opts.rateLimits) {
    await app.register(rateLimit, {
      global: false,
      errorResponseBuilder: (_request, context) =>
        new HttpError(429, 'RATE_LIMITED', `too many requests from this address: at most ${context.max} per ${context.after}; try again shortly`),
    });
  }
}

/** The route options that put a route under one of the rate limits (nothing when limits are off or 0). */
export function rateLimited(limits: RateLimits | false, which: keyof RateLimits): { config?: { rateLimit: { max: number; timeWindow: string } } } {
  const max = limits ? limits[which] : 0;
  return max > 0 ? { config: { rateLimit: { max, timeWindow: '1 minute' } } } : {};
}

/** An Origin (or a cross-site Sec-Fetch-Site) that is not this site's. */
function foreignOrigin(request: FastifyRequest): boolean {
  if (request.headers['sec-fetch-site'] === 'cross-site') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  if (origin === 'null') return true;
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}
