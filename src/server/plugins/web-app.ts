import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Paths that never fall back to the web app: they answer JSON errors. */
const API_LIKE = /^\/(api|resmedias|console\/api)(\/|$)/;
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Serves the built web app (vite outDir): hashed files under /assets/ are immutable, everything else
 * (index.html above all) must be revalidated. Any other GET answers index.html, with the media base injected
 * as <meta name="glimpse-media-base"> (and, when a developer acuity bypass is set, its SHA-256 as
 * <meta name="glimpse-acuity-bypass-sha256">), so every client-side route loads. Unknown /api/... paths get a JSON 404.
 */
export async function registerWebApp(
  app: FastifyInstance,
  opts: { webDir: string; mediaBaseUrl: string; acuityBypass?: string | null; precompressed?: boolean },
): Promise<void> {
  await app.register(fastifyStatic, {
    root: opts.webDir,
    prefix: '/',
    index: false,
    wildcard: true,
    cacheControl: false,
    // The build's brotli and gzip copies (scripts/vite-precompress.ts), sent as they are to a browser that accepts
    // them, with Content-Encoding; the plain file otherwise.
    preCompressed: opts.precompressed !== false,
    // index.html is answered below, with the meta tag injected.
    allowedPath: (pathname) => pathname !== '/index.html',
    setHeaders: (res, filePath) => {
      // sendFile() of the media route passes through here too; only web files are handled.
      if (!filePath.startsWith(opts.webDir + sep)) return;
      // Hashed assets never change under their name: cached for a year; the rest is revalidated.
      res.setHeader('cache-control', filePath.startsWith(join(opts.webDir, 'assets') + sep) ? IMMUTABLE : 'no-cache');
      // The answer depends on Accept-Encoding: caches must keep one copy per encoding.
      res.setHeader('vary', 'Accept-Encoding');
    },
  });

  // Hashed assets from memory once read: every participant's page loads the same dozen files, and each would
  // otherwise cost a stat, an open, reads and a close on libuv's thread pool (docs/data-safety.md "Deployment on
  // several nodes").
  const assets = assetMemory(join(opts.webDir, 'assets'), opts.precompressed !== false);
  app.get<{ Params: { '*': string } }>('/assets/*', async (request, reply) => {
    const name = request.params['*'];
    const asset = /^[\w.-]+$/.test(name) ? await assets.get(name) : undefined;
    if (asset === undefined) return reply.sendFile(`assets/${name}`);
    if (asset === null) return reply.callNotFound();
    reply.header('cache-control', IMMUTABLE).header('vary', 'Accept-Encoding').header('etag', asset.etag).type(asset.type);
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    const accepted = request.headers['accept-encoding'] ?? '';
    const [encoding, body] = asset.br && /\bbr\b/.test(accepted) ? ['br', asset.br] : asset.gzip && /\bgzip\b/.test(accepted) ? ['gzip', asset.gzip] : [null, asset.plain];
    if (encoding) reply.header('content-encoding', encoding);
    return reply.send(body);
  });

  const index = indexHtmlLoader(join(opts.webDir, 'index.html'), (html) =>
    injectAcuityBypass(injectMediaBase(html, opts.mediaBaseUrl), opts.acuityBypass ?? null),
  );
  const sendIndex = async (reply: FastifyReply) => {
    const html = await index();
    if (html === null) {
      return reply.code(503).send({ error: 'WEB_APP_NOT_BUILT', message: `no ${opts.webDir}/index.html: run npm run build` });
    }
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html);
  };
  // "/" is a directory for the static plugin (403 without an index): answer the app explicitly.
  app.get('/', (_request, reply) => sendIndex(reply));
  app.setNotFoundHandler(async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0];
    if (API_LIKE.test(path) || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return reply.code(404).send({ error: 'NOT_FOUND', message: `no route ${request.method} ${path}` });
    }
    return sendIndex(reply);
  });
}

/** Content types of the build's files that are kept in memory (others are sent from disk). */
const ASSET_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  json: 'application/json; charset=utf-8',
  wasm: 'application/wasm',
  woff2: 'font/woff2',
};
const MAX_ASSET_BYTES = 4 * 1024 * 1024;

interface Asset {
  type: string;
  etag: string;
  plain: Buffer;
  br: Buffer | null;
  gzip: Buffer | null;
}

/**
 * The hashed assets of the build, read on first request with their brotli and gzip copies and kept: a hashed name
 * never changes content. get() answers undefined for a file it does not keep (another type, too large: sent from
 * disk), null for none.
 */
function assetMemory(dir: string, precompressed: boolean) {
  const kept = new Map<string, Asset>();
  const optional = (file: string) => (precompressed ? readFile(file).catch(() => null) : Promise.resolve(null));
  return {
    async get(name: string): Promise<Asset | null | undefined> {
      const found = kept.get(name);
      if (found) return found;
      const type = ASSET_TYPES[name.split('.').pop()!];
      if (!type) return undefined;
      const info = await stat(join(dir, name)).catch(() => null);
      if (!info?.isFile()) return null;
      if (info.size > MAX_ASSET_BYTES) return undefined;
      const file = join(dir, name);
      const [plain, br, gzip] = await Promise.all([readFile(file), optional(`${file}.br`), optional(`${file}.gz`)]);
      const asset = { type, etag: `"${createHash('sha1').update(plain).digest('base64url')}"`, plain, br, gzip };
      kept.set(name, asset);
      return asset;
    },
  };
}

/** index.html with the meta tags injected, re-read only when the file changes (a rebuild while running). */
function indexHtmlLoader(file: string, inject: (html: string) => string): () => Promise<string | null> {
  let cached: { mtimeMs: number; html: string } | null = null;
  return async () => {
    const info = await stat(file).catch(() => null);
    if (!info) return null;
    if (cached?.mtimeMs !== info.mtimeMs) {
      cached = { mtimeMs: info.mtimeMs, html: inject(await readFile(file, 'utf8')) };
    }
    return cached.html;
  };
}

export function injectMediaBase(html: string, mediaBaseUrl: string): string {
  return injectMeta(html, 'glimpse-media-base', mediaBaseUrl);
}

/** Name read by the client (ACUITY_BYPASS_META in src/web/screens/visual/visualChecks.ts; the server test ties them). */
const ACUITY_BYPASS_META = 'glimpse-acuity-bypass-sha256';

/**
 * The acuity test's developer bypass: only the SHA-256 (hex) of the value goes into the page, so reading the
 * page source does not reveal it. No bypass: no tag (any tag already in the file is removed).
 */
export function injectAcuityBypass(html: string, bypass: string | null): string {
  // The client hashes the typed answer trimmed: a value with surrounding spaces could never match otherwise.
  const value = bypass?.trim() ?? '';
  if (value === '') return html.replace(metaPattern(ACUITY_BYPASS_META), '');
  return injectMeta(html, ACUITY_BYPASS_META, createHash('sha256').update(value, 'utf8').digest('hex'));
}

const metaPattern = (name: string) => new RegExp(`<meta\\s+name="${name}"[^>]*>`, 'i');

/** Sets <meta name={name} content={content}>: replaces the tag if index.html has one, else adds it to <head>. */
function injectMeta(html: string, name: string, content: string): string {
  const tag = `<meta name="${name}" content="${escapeAttribute(content)}">`;
  const existing = metaPattern(name);
  if (existing.test(html)) return html.replace(existing, tag);
  return html.includes('</head>') ? html.replace('</head>', `  ${tag}\n  </head>`) : tag + html;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
