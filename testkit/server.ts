import type { LargeBodyLimits } from '../src/server/body/large-bodies.js';
import type { RateLimits } from '../src/server/plugins/security.js';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach } from 'vitest';
import type { PlaylistResponse, PlaylistStimulus } from '../src/contract/playlist.js';
import type { ProtocolRegistry } from '../src/protocols/registry.js';
import { buildApp } from '../src/server/app.js';
import type { LiveStreamLimits } from '../src/server/console/live-stats.js';
import type { UploadLimits } from '../src/server/console/study-zip.js';
import { openStorage } from '../src/server/storage/open.js';
import type { DialectName, Storage } from '../src/server/storage/types.js';
export { countRows } from './rows.js';
import { importStudy } from '../src/server/study/import.js';
import { createTestDatabase, type TestDatabase } from './databases.js';

export interface ServerContext {
  dialect: DialectName;
  storage: Storage;
  app: FastifyInstance;
  mediaDir: string;
  webDir: string;
  database: TestDatabase;
  /** Imports a study file into this context's database and media store (`replace`: as `cli import --replace`). */
  importStudy(file: string, opts?: { replace?: boolean }): ReturnType<typeof importStudy>;
}

/**
 * Registers beforeEach/afterEach hooks that give every test a fresh database of `dialect` (migrated), an empty
 * media store and an app to inject requests into; returns a getter for the current context.
 */
export function useServer(
  dialect: DialectName,
  opts: { mediaBaseUrl?: string; webDir?: string; acuityBypass?: string; protocols?: ProtocolRegistry; linkSecret?: string; rateLimits?: RateLimits | false; largeBodies?: Partial<LargeBodyLimits>; uploadLimits?: Partial<UploadLimits>; liveStreams?: Partial<LiveStreamLimits> } = {},
): () => ServerContext {
  let ctx: ServerContext | undefined;
  beforeEach(async () => {
    const database = await createTestDatabase(dialect);
    const storage = await openStorage({ databaseUrl: database.url });
    const mediaDir = join(database.dir, 'media');
    await mkdir(mediaDir, { recursive: true });
    const webDir = opts.webDir ?? join(database.dir, 'web');
    const app = await buildApp({ storage, mediaDir, webDir, mediaBaseUrl: opts.mediaBaseUrl ?? '', acuityBypass: opts.acuityBypass, protocols: opts.protocols, linkSecret: opts.linkSecret, rateLimits: opts.rateLimits, largeBodies: opts.largeBodies, uploadLimits: opts.uploadLimits, liveStreams: opts.liveStreams });
    ctx = { dialect, storage, app, mediaDir, webDir, database, importStudy: (file, o = {}) => importStudy(storage, file, mediaDir, { protocols: opts.protocols, replace: o.replace }) };
  });
  afterEach(async () => {
    if (!ctx) return;
    await ctx.app.close();
    await ctx.storage.close();
    await ctx.database.drop();
    ctx = undefined;
  });
  return () => {
    if (!ctx) throw new Error('no server context outside a test');
    return ctx;
  };
}

export const json = <T = any>(res: LightMyRequestResponse): T => JSON.parse(res.body) as T;

/** GET a playlist (creates a session unless it is an MTurk preview). */
export async function getPlaylist(app: FastifyInstance, path: string, query = ''): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url: `${path}${query ? `?${query}` : ''}` });
}

export type GenericPlaylist = PlaylistResponse<PlaylistStimulus>;

export function ratingBody(playlist: PlaylistResponse<any>, stimulusId: number, extra: Record<string, unknown> = {}) {
  return {
    stimuli_id: stimulusId,
    session_id: playlist.session_id,
    session_token: playlist.sessionToken,
    value: 1,
    nbReplay: 0,
    logs: JSON.stringify([{ label: 'A', onsetMs: 10, offsetMs: 1010 }]),
    ...extra,
  };
}

export function postJson(app: FastifyInstance, url: string, body: unknown, headers: Record<string, string> = {}) {
  return app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });
}

const PARTICIPANT_TABLES = ['sessions', 'session_identities', 'session_verdicts', 'ratings', 'screenings', 'session_logs', 'bchecks', 'consents', 'withdrawals'] as const;
export type ParticipantTable = (typeof PARTICIPANT_TABLES)[number];

/** Every row of the tables that hold participant data, in a stable order: compare two to see what a command changed. */
export async function participantData(storage: Storage): Promise<Record<ParticipantTable, Array<Record<string, unknown>>>> {
  const entries = await Promise.all(
    PARTICIPANT_TABLES.map(async (table) => {
      const rows = await storage.db.selectFrom(table).selectAll().execute();
      const key = (row: Record<string, unknown>) => Number(table === 'session_identities' || table === 'session_verdicts' ? row.session_id : row.id);
      return [table, (rows as Array<Record<string, unknown>>).sort((a, b) => key(a) - key(b))] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<ParticipantTable, Array<Record<string, unknown>>>;
}
