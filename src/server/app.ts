import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { PROTOCOLS, protocolOf, type ProtocolRegistry } from '../protocols/registry.js';
import type { ProtocolDefinition } from '../protocols/types.js';
import { badText, badTextPath, JsonWorkerPool, parseSmallJson } from './body/json-pool.js';
import { DEFAULT_LARGE_BODY_LIMITS, LargeBodyBudget, type LargeBodyLimits } from './body/large-bodies.js';
import type { TrustProxy } from './config.js';
import { DEFAULT_RATE_LIMITS, registerSecurity, type RateLimits } from './plugins/security.js';
import { registerConsoleAuth } from './console/auth.js';
import { consoleDataRoutes } from './console/data-routes.js';
import { consoleJobRoutes, liveStatsHub } from './console/job-routes.js';
import { DEFAULT_LIVE_STREAM_LIMITS, type LiveStatsHub, type LiveStreamLimits } from './console/live-stats.js';
import { DEFAULT_UPLOAD_LIMITS, type UploadLimits } from './console/study-zip.js';
import { recoverStaging } from './study/staging.js';
import { registerErrorHandler } from './plugins/error-handler.js';
import { registerWebApp } from './plugins/web-app.js';
import { answerRoutes } from './routes/answers.js';
import { bcheckRoutes } from './routes/bchecks.js';
import { consentRoutes } from './routes/consent.js';
import { jobRoutes } from './routes/jobs.js';
import { mediaRoutes } from './routes/media.js';
import { metaRoutes } from './routes/meta.js';
import { playlistRoutes } from './routes/playlists.js';
import { sessionLogRoutes } from './routes/session-logs.js';
import { sessionRoutes } from './routes/sessions.js';
import type { StoredJob } from './storage/jobs.js';
import { sweepOrphanPages } from './storage/text-pages.js';
import type { Storage } from './storage/types.js';

export interface AppOptions {
  storage: Storage;
  mediaDir: string;
  /** '' = same origin; a path prefix ("/media") is also served here, a full URL is another host's business. */
  mediaBaseUrl?: string;
  webDir: string;
  sessionLeaseMinutes?: number;
  /** Developer answer the acuity test also accepts; its SHA-256 goes into index.html (null/absent = none). */
  acuityBypass?: string | null;
  /** Key of signed participant links choosing a playlist (null/absent: only jobs with allowPlaylistChoice honour one). */
  linkSecret?: string | null;
  /** Per-address limits on session creation and consent forms (default DEFAULT_RATE_LIMITS); false = none. */
  rateLimits?: RateLimits | false;
  /** The proxies whose X-Forwarded-For names the client (config.ts TrustProxy; default false: none). */
  trustProxy?: TrustProxy;
  /** Whole-request timeout, ms (a slow client is cut off; default 120 s). */
  requestTimeoutMs?: number;
  /** Send the build's brotli/gzip copies of the web files (default); false serves them plain (bench:timing's baseline). */
  precompressedWeb?: boolean;
  /** A connection idle this long is closed, ms (default 60 s). */
  idleTimeoutMs?: number;
  /** Base of participant links shown in the console (default: the request's host). */
  publicUrl?: string | null;
  /** The console's study uploads: zip size, unpacked size, entries, disk shared by uploads in progress (study-zip.ts). */
  uploadLimits?: Partial<UploadLimits>;
  /** Large bodies in flight, per process and per session (body/large-bodies.ts). */
  largeBodies?: Partial<LargeBodyLimits>;
  /** Live statistics streams per console account and in all, on this node (console/live-stats.ts). */
  liveStreams?: Partial<LiveStreamLimits>;
  logger?: boolean;
  /** The protocol table (default: the registry; tests add throwaway protocols). */
  protocols?: ProtocolRegistry;
}

declare module 'fastify' {
  interface FastifyInstance {
    storage: Storage;
    protocols: ProtocolRegistry;
    /** Parses and validates large bodies off the event loop (body/json-pool.ts). */
    jsonPool: JsonWorkerPool;
    /** The bytes of large bodies this process may receive at once (body/large-bodies.ts). */
    largeBodies: LargeBodyBudget;
    /** The console's live statistics streams (console/live-stats.ts). */
    liveStats: LiveStatsHub;
    /** Every route registered, as the router matches it (the console's gate test walks them). */
    registeredRoutes: ReadonlyArray<{ method: string; url: string }>;
    /** The definition of a stored job's protocol (null for a name the table does not know). */
    protocolOf(job: StoredJob): ProtocolDefinition | null;
  }
}

const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

/**
 * The whole HTTP application (no listening): plugins first, then every route explicitly. Tests drive it with
 * app.inject(); start.ts listens.
 */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? false,
    // Bodies are validated as sent: no stripping of unknown fields, no type coercion. Fail fast: the first error
    // refuses a body (collecting every error of a junk body took seconds). verbose: errors carry their schema, so a
    // union reports "must be one of ..." (errors.ts).
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false, verbose: true } },
    // Every body the event loop parses is small (its cost is bounded); larger ones name their limit (ratings, logs,
    // uploads) and are parsed off the loop.
    bodyLimit: 64 * 1024,
    // Slow clients are cut off: a whole request within requestTimeout, no socket idle for a minute while a request
    // arrives or its answer is sent (security.ts).
    requestTimeout: opts.requestTimeoutMs ?? 120_000,
    connectionTimeout: opts.idleTimeoutMs ?? 60_000,
    keepAliveTimeout: 10_000,
    // request.ip (and so every per-address rate limit and sign-in lock) is the client named by trusted proxies only.
    // A hop count trusts the nearest N hops (Fastify's typings take no number, its runtime the same function).
    trustProxy: typeof opts.trustProxy === 'number' ? trustHops(opts.trustProxy) : (opts.trustProxy ?? false),
  });
  const protocols = opts.protocols ?? PROTOCOLS;
  app.decorate('storage', opts.storage);
  app.decorate('protocols', protocols);
  app.decorate('protocolOf', (job: StoredJob) => protocolOf(job.protocol, protocols));
  const registeredRoutes: Array<{ method: string; url: string }> = [];
  app.decorate('registeredRoutes', registeredRoutes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) registeredRoutes.push({ method, url: route.url });
  });
  const jsonPool = new JsonWorkerPool();
  app.decorate('jsonPool', jsonPool);
  app.addHook('onClose', () => jsonPool.close());
  app.decorate('largeBodies', new LargeBodyBudget({ ...DEFAULT_LARGE_BODY_LIMITS, ...opts.largeBodies }));
  registerErrorHandler(app);
  // What a killed process left in the media store's staging folder: committed imports finished, the rest removed.
  const recovered = await recoverStaging(opts.storage, opts.mediaDir);
  if (recovered.completed.length > 0 || recovered.removed > 0) app.log.warn(recovered, 'staging left by a stopped process recovered');
  // Pages of session logs and mouse logs that a killed process never committed (storage/text-pages.ts).
  const orphanPages = await sweepOrphanPages(opts.storage);
  if (orphanPages > 0) app.log.warn({ orphanPages }, 'pages of logs left by a stopped process removed');
  // navigator.sendBeacon (the client's last-chance upload when a page closes) posts strings as text/plain:
  // such bodies are read as JSON too. Any other non-JSON type gets 415. Text that cannot be stored as text (NUL, a
  // lone surrogate) is refused here, on both databases alike.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string' }, (_request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void) => {
    let value: unknown;
    try {
      value = parseSmallJson(body);
    } catch (error) {
      return done(error as Error);
    }
    return done(null, value);
  });

  const mediaBaseUrl = opts.mediaBaseUrl ?? '';
  const rateLimits = opts.rateLimits ?? DEFAULT_RATE_LIMITS;
  await registerSecurity(app, { mediaBaseUrl, rateLimits });
  await app.register(metaRoutes);
  await app.register(jobRoutes);
  await app.register(playlistRoutes, { sessionLeaseMinutes: opts.sessionLeaseMinutes ?? 60, linkSecret: opts.linkSecret ?? null, rateLimits });
  await app.register(bcheckRoutes);
  await app.register(answerRoutes, { rateLimits });
  await app.register(sessionLogRoutes, { rateLimits });
  await app.register(consentRoutes, { rateLimits });
  await app.register(sessionRoutes);
  // The researcher console's API (src/server/console/), in a context of its own: its sign-in hook and upload parser
  // stay away from the participant routes.
  const liveStats = liveStatsHub(app, opts.sessionLeaseMinutes ?? 60, { ...DEFAULT_LIVE_STREAM_LIMITS, ...opts.liveStreams });
  app.decorate('liveStats', liveStats);
  await app.register(async (scope) => {
    await registerConsoleAuth(scope, { rateLimits });
    // Query strings hold no NUL or lone surrogate (PostgreSQL refuses NUL in text), on both databases alike.
    scope.addHook('preValidation', async (request) => {
      const bad = badTextPath(request.query, 'querystring');
      if (bad) throw badText(bad);
    });
    await scope.register(consoleJobRoutes, {
      leaseMinutes: opts.sessionLeaseMinutes ?? 60,
      publicUrl: (host) => (opts.publicUrl ?? process.env.PUBLIC_URL ?? `http://${host ?? 'localhost'}`).replace(/\/+$/, ''),
      liveStats,
    });
    await scope.register(consoleDataRoutes, { mediaDir: opts.mediaDir, uploadLimits: { ...DEFAULT_UPLOAD_LIMITS, ...opts.uploadLimits } });
  });
  await registerWebApp(app, { webDir: opts.webDir, mediaBaseUrl, acuityBypass: opts.acuityBypass ?? null, precompressed: opts.precompressedWeb });
  // Same origin always serves /resmedias; a path-only MEDIA_BASE_URL ("/media") is served under that prefix too.
  await app.register(mediaRoutes, { mediaDir: opts.mediaDir, prefix: '' });
  if (mediaBaseUrl.startsWith('/')) await app.register(mediaRoutes, { mediaDir: opts.mediaDir, prefix: mediaBaseUrl });
  return app;
}
