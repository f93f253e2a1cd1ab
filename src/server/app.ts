import Fastify, { type FastifyInstance } from 'fastify';
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
  logger?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    storage: Storage;
  }
}

/**
 * The whole HTTP application (no listening): plugins first, then every route explicitly. Tests drive it with
 * app.inject(); start.ts listens.
 */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? false,
    // Bodies are validated as sent: no stripping of unknown fields, no type coercion, every error reported.
    // verbose: errors carry their schema, so a union reports "must be one of ..." (errors.ts).
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: true, verbose: true } },
    bodyLimit: 1024 * 1024,
  });
  app.decorate('storage', opts.storage);
  registerErrorHandler(app);
  // navigator.sendBeacon (the client's last-chance upload when a page closes) posts strings as text/plain:
  // such bodies are read as JSON too. Any other non-JSON type gets 415.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));

  const mediaBaseUrl = opts.mediaBaseUrl ?? '';
  await app.register(metaRoutes);
  await app.register(jobRoutes);
  await app.register(playlistRoutes, { sessionLeaseMinutes: opts.sessionLeaseMinutes ?? 60 });
  await app.register(bcheckRoutes);
  await app.register(answerRoutes);
  await app.register(sessionLogRoutes);
  await app.register(consentRoutes);
  await app.register(sessionRoutes);
  await registerWebApp(app, { webDir: opts.webDir, mediaBaseUrl, acuityBypass: opts.acuityBypass ?? null });
  // Same origin always serves /resmedias; a path-only MEDIA_BASE_URL ("/media") is served under that prefix too.
  await app.register(mediaRoutes, { mediaDir: opts.mediaDir, prefix: '' });
  if (mediaBaseUrl.startsWith('/')) await app.register(mediaRoutes, { mediaDir: opts.mediaDir, prefix: mediaBaseUrl });
  return app;
}
