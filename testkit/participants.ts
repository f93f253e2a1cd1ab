import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { getPlaylist, json, postJson, ratingBody, type GenericPlaylist } from './server.js';

export const BCHECK = { b_name: 'Firefox', b_version: '128.0', b_os: 'Windows', screen_size: '1920x1080' };

/** A session-logs post with these states (by default the result page's) and no other log. */
export const sessionLogsOf = (token: string, logStates: Array<{ state: string; status: string; time: number }> = [{ state: 'Result', status: 'ok', time: 5 }]) => ({
  sessionToken: token,
  logStates,
  logMouseMovement: [],
  logMouseClick: [],
  logScroll: [],
  logKeyboard: [],
  logFocus: [],
  logDomSize: [],
});

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

const SIZE = { width: 1280, height: 720 };

/**
 * A timing envelope as the page posts it (contract TimingEnvelope): one play of one exactly timed media step,
 * answered `answerAfterMs` after its onset, in fullscreen unless told otherwise.
 */
export function timingEnvelopeOf(opts: { media?: string; answerAfterMs?: number; fullscreen?: boolean; droppedFrames?: number; step?: Record<string, unknown> } = {}) {
  const onsetMs = 1000;
  return {
    v: 2,
    plays: [[{ label: 'stimulus', media: [opts.media ?? 'm.png'], requestedFrames: 60, shownFrames: 60, onsetMs, offsetMs: onsetMs + 1000, droppedFrames: opts.droppedFrames ?? 0, refreshMs: 16.667, endedBy: 'duration', ...opts.step }]],
    refreshMs: 16.667,
    timeOrigin: 1_700_000_000_000,
    answeredMs: onsetMs + (opts.answerAfterMs ?? 2500),
    window: { inner: SIZE, outer: SIZE, screen: SIZE, available: SIZE, document: SIZE, zoom: 1, isfullScreen: opts.fullscreen ?? true },
  };
}
