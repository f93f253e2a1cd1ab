import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { BCHECK, sessionLogsOf, timingEnvelopeOf } from './participant-bodies.js';
import { getPlaylist, json, postJson, ratingBody, type GenericPlaylist } from './server.js';

export { BCHECK, sessionLogsOf, timingEnvelopeOf };

export interface Participation {
  playlist: GenericPlaylist;
  sessionId: number;
  token: string;
  bcheckId: number;
  /** Verification code; null when the test was left unfinished. */
  code: string | null;
}

/**
 * One participant taking a generic (non-bubble) test through the API as the web client does: browser check,
 * playlist with the platform query, ratings, a session-log post, then (complete) the verification code.
 * Unfinished: only the first stimulus is rated.
 */
export async function takeTest(
  app: FastifyInstance,
  playlistPath: string,
  query: string,
  opts: { complete?: boolean; bcheckId?: number; timing?: boolean } = {},
): Promise<Participation> {
  const bcheckId = opts.bcheckId ?? (json<{ id: number }>(await postJson(app, '/api/bchecks/', BCHECK)).id);
  const res = await getPlaylist(app, playlistPath, `${query}&bcheckId=${bcheckId}`);
  expect(res.statusCode).toBe(200);
  const playlist = json<GenericPlaylist>(res);
  const rated = opts.complete ? playlist.stimulis : playlist.stimulis.slice(0, 1);
  // With `timing`, each rating carries its timing envelope, as the page posts it (quality control accepts the session).
  const extra = opts.timing ? { timing: timingEnvelopeOf() } : {};
  for (const s of rated) expect((await postJson(app, '/api/ratings/', ratingBody(playlist, s.stimuliId, extra))).statusCode).toBe(201);
  expect((await postJson(app, '/api/sessionlogs/', sessionLogsOf(playlist.sessionToken!))).statusCode).toBe(201);
  let code: string | null = null;
  if (opts.complete) code = json<{ verification_code: string }>(await app.inject(`/api/sessions/token/${playlist.sessionToken}`)).verification_code;
  return { playlist, sessionId: playlist.session_id!, token: playlist.sessionToken!, bcheckId, code };
}
