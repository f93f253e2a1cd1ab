import { resolve } from 'node:path';
import { DEFAULT_RATE_LIMITS, type RateLimits } from './plugins/security.js';
import { DEFAULT_SQLITE_FILE, SQLITE_SYNCHRONOUS_MODES, type SqliteSynchronous } from './storage/open.js';

/** Server settings read from the environment (README "Configuration"). */
export interface ServerConfig {
  host: string;
  port: number;
  databaseUrl: string;
  /** Where imported media live: {mediaDir}/{jobId}/{relative path}. */
  mediaDir: string;
  /** Prefix the client puts before /resmedias/...; '' = same origin. */
  mediaBaseUrl: string;
  /** Built web app (vite outDir). */
  webDir: string;
  /** SQLITE_SYNCHRONOUS: DURABLE (default), FULL or NORMAL (storage/open.ts SqliteSynchronous). */
  sqliteSynchronous: SqliteSynchronous;
  /** An unfinished session stops counting toward its playlist's load after this many minutes (abandoned). */
  sessionLeaseMinutes: number;
  /** ACUITY_BYPASS: a developer answer the acuity test also accepts (only its SHA-256 reaches the page); null = none. */
  acuityBypass: string | null;
  /** LINK_SECRET: the key of signed participant links that choose a playlist (`cli link`); null = none. */
  linkSecret: string | null;
  /** RATE_LIMIT_SESSIONS_PER_MINUTE, RATE_LIMIT_CONSENTS_PER_MINUTE and RATE_LIMIT_ANSWERS_PER_MINUTE, per client address; 0 = no limit. */
  rateLimits: RateLimits;
  /** REQUEST_TIMEOUT_MS: a whole request (body included) within this (default 120000). */
  requestTimeoutMs: number;
  /** TRUST_PROXY: the proxies whose X-Forwarded-For names the client (TrustProxy); false = none (the default). */
  trustProxy: TrustProxy;
}

/**
 * Which proxies in front may name the client (X-Forwarded-For): a hop count (the nearest N hops are proxies: only
 * when nothing reaches the node but through them), or a list of their addresses / CIDR ranges (safer: a direct
 * client's X-Forwarded-For is ignored). false: the socket's address is the client.
 */
export type TrustProxy = false | number | string[];

export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = (value ?? '').trim();
  if (text === '' || text === '0') return false;
  if (/^\d+$/.test(text)) return Number(text);
  const list = text.split(',').map((a) => a.trim()).filter(Boolean);
  // Addresses, CIDR ranges, or proxy-addr's names (loopback, linklocal, uniquelocal); never "true": everyone would be trusted.
  const bad = list.find((a) => !/^([0-9a-f.:]+(\/\d{1,3})?|loopback|linklocal|uniquelocal)$/i.test(a));
  if (bad !== undefined) throw new Error(`TRUST_PROXY must be a hop count or a comma-separated list of proxy addresses or CIDR ranges, got ${JSON.stringify(bad)}`);
  return list;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be an integer 0..65535, got ${env.PORT}`);
  const sync = (env.SQLITE_SYNCHRONOUS || 'DURABLE').toUpperCase() as SqliteSynchronous;
  if (!SQLITE_SYNCHRONOUS_MODES.includes(sync)) throw new Error(`SQLITE_SYNCHRONOUS must be ${SQLITE_SYNCHRONOUS_MODES.join(', ')}; got ${sync}`);
  const lease = Number(env.SESSION_LEASE_MINUTES ?? 60);
  if (!(lease > 0)) throw new Error(`SESSION_LEASE_MINUTES must be a positive number, got ${env.SESSION_LEASE_MINUTES}`);
  return {
    host: env.HOST || '127.0.0.1',
    port,
    databaseUrl: env.DATABASE_URL || DEFAULT_SQLITE_FILE,
    mediaDir: resolve(env.MEDIA_DIR || './data/media'),
    mediaBaseUrl: (env.MEDIA_BASE_URL ?? '').replace(/\/+$/, ''),
    webDir: resolve(env.WEB_DIR || './dist/web'),
    sqliteSynchronous: sync,
    sessionLeaseMinutes: lease,
    acuityBypass: env.ACUITY_BYPASS || null,
    linkSecret: env.LINK_SECRET || null,
    rateLimits: {
      sessionsPerMinute: nonNegative(env, 'RATE_LIMIT_SESSIONS_PER_MINUTE', DEFAULT_RATE_LIMITS.sessionsPerMinute),
      consentsPerMinute: nonNegative(env, 'RATE_LIMIT_CONSENTS_PER_MINUTE', DEFAULT_RATE_LIMITS.consentsPerMinute),
      answersPerMinute: nonNegative(env, 'RATE_LIMIT_ANSWERS_PER_MINUTE', DEFAULT_RATE_LIMITS.answersPerMinute),
    },
    requestTimeoutMs: nonNegative(env, 'REQUEST_TIMEOUT_MS', 120_000),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
  };
}

function nonNegative(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number >= 0, got ${env[name]}`);
  return value;
}
