import axios, { AxiosError } from 'axios';
import type { JobResponse } from '../../contract/job.js';
import { RESUME_TOKEN_HEADER, SESSION_TOKEN_HEADER } from '../../contract/headers.js';
import type { ApiError, BcheckBody, BubbleScreeningBody, ConsentBody, RatingBody, SessionLogsBody } from '../../contract/payloads.js';
import type { PlaylistResponse, VisitResponse } from '../../contract/playlist.js';
import { withRetry, sleep } from './retry.js';

/**
 * Every server call of the web client (SPEC §7). Failures the spec says are "only logged" are caught here and
 * logged to the console; the callers get null/false. Answer posts carry an Idempotency-Key reused by every retry.
 */

export const http = axios.create({ timeout: 20_000, headers: { 'Content-Type': 'application/json' } });

const SESSION_LOGS_PATH = '/api/sessionlogs/';

export function statusOf(error: unknown): number | null {
  return error instanceof AxiosError ? (error.response?.status ?? null) : null;
}

export function errorBodyOf(error: unknown): Partial<ApiError> & { flag?: string } {
  if (!(error instanceof AxiosError)) return {};
  const data = error.response?.data;
  return data && typeof data === 'object' ? (data as Partial<ApiError> & { flag?: string }) : {};
}

/** Network failures, timeouts, 5xx and 429 are worth another try; other 4xx answers will not change. */
export function isTransient(error: unknown): boolean {
  const status = statusOf(error);
  return status === null || status >= 500 || status === 429;
}

export async function getJob(jobId: string): Promise<JobResponse> {
  const res = await withRetry(() => http.get<JobResponse>(`/api/jobs/${encodeURIComponent(jobId)}`), {
    attempts: 3,
    baseDelayMs: 500,
    shouldRetry: isTransient,
  });
  return res.data;
}

/** POST /api/bchecks/: its id becomes bcheckId; null on any failure (SPEC §7). */
export async function postBcheck(body: BcheckBody): Promise<number | null> {
  try {
    const res = await http.post<{ id: number }>('/api/bchecks/', body);
    return typeof res.data?.id === 'number' ? res.data.id : null;
  } catch (error) {
    console.log('browser check post failed', error);
    return null;
  }
}

/** Why the server refuses a new participant; the page shows each on its own screen. */
export type Refusal = { kind: 'alreadyCompleted' } | { kind: 'studyFull' } | { kind: 'notOpen'; status: NotOpenStatus } | { kind: 'failed' };
export type NotOpenStatus = 'paused' | 'closed' | 'draft';

const NOT_OPEN: Record<string, NotOpenStatus> = { STUDY_PAUSED: 'paused', STUDY_CLOSED: 'closed', STUDY_NOT_OPEN_YET: 'draft' };

/** The refusal a failed visit or playlist call means; anything unexpected is a connection failure (logged). */
function refusalOf(error: unknown, call: string): Refusal {
  const body = errorBodyOf(error);
  if (statusOf(error) === 403) {
    if (body.flag === 'ALREADY_COMPLETED' || body.error === 'ALREADY_COMPLETED') return { kind: 'alreadyCompleted' };
    if (body.error === 'STUDY_FULL') return { kind: 'studyFull' };
    const status = NOT_OPEN[body.error ?? ''];
    if (status) return { kind: 'notOpen', status };
  }
  console.log(`${call} failed`, error);
  return { kind: 'failed' };
}

export type VisitResult = { kind: 'new'; visit: string | null } | { kind: 'resumable' } | Refusal;

/**
 * POST /api/visits/{jobId} (docs/data-safety.md "Participant continuity") with the query the playlist call will carry,
 * when the eligibility checks are shown: a repeat participant, a study not open and a session to resume are known at
 * once; a new visitor's visit is logged and holds nothing until the checks are passed.
 */
export async function postVisit(jobId: string, params: Record<string, string>, resumeToken: string | null): Promise<VisitResult> {
  const headers = resumeToken ? { [RESUME_TOKEN_HEADER]: resumeToken } : {};
  try {
    // No body (so no Content-Type): the visit is its query.
    const res = await withRetry(() => http.post<VisitResponse>(`/api/visits/${encodeURIComponent(jobId)}`, undefined, { params, headers: { ...headers, 'Content-Type': null } }), {
      attempts: 3,
      baseDelayMs: 500,
      shouldRetry: isTransient,
    });
    return res.data.resumable ? { kind: 'resumable' } : { kind: 'new', visit: res.data.visit };
  } catch (error) {
    return refusalOf(error, 'visit call');
  }
}

export type PlaylistResult<S> = { kind: 'ok'; playlist: PlaylistResponse<S> } | Refusal;

/**
 * GET /api/{playlistPath}/{jobId} (the protocol's path) with the forwarded query: the session starts here (or is
 * given back). `visit` marks the page's visit started.
 */
export async function getPlaylist<S>(playlistPath: string, jobId: string, params: Record<string, string>, resumeToken: string | null = null): Promise<PlaylistResult<S>> {
  const path = `/api/${playlistPath}/${encodeURIComponent(jobId)}`;
  // The token of this job's session kept by an earlier load: an anonymous participant gets their session back.
  const headers = resumeToken ? { [RESUME_TOKEN_HEADER]: resumeToken } : {};
  try {
    const res = await withRetry(() => http.get<PlaylistResponse<S>>(path, { params, headers }), {
      attempts: 3,
      baseDelayMs: 500,
      shouldRetry: isTransient,
    });
    return { kind: 'ok', playlist: res.data };
  } catch (error) {
    return refusalOf(error, 'playlist call');
  }
}

export interface RatingAck {
  id: number;
  stimuli_id: number;
  session_id: number;
  /** The presentation already had an answer (a lost acknowledgement, another tab): the stored one counts. */
  alreadyAnswered?: { value?: number; nbReplay?: number; screening_no?: number };
}

/**
 * POST /api/ratings/ with the answer's Idempotency-Key: the server stores one row per key and answers a replay
 * with the first answer, so the automatic retries and a later manual re-submit never create a duplicate.
 */
export function postRating(body: RatingBody, idempotencyKey: string): Promise<RatingAck> {
  // A rating over 16 KiB (a 3D step's camera poses) is read only with the token header (server body/large-bodies.ts).
  return postAnswer('/api/ratings/', body, idempotencyKey, { [SESSION_TOKEN_HEADER]: body.session_token });
}

/** POST /api/bubblescreenings/: a bubble play's mouse log, with the same key and retry policy as ratings. */
export function postScreening(body: BubbleScreeningBody, idempotencyKey: string): Promise<RatingAck> {
  // Mouse logs can be megabytes: the token header lets the server check the session before reading them.
  return postAnswer('/api/bubblescreenings/', body, idempotencyKey, { [SESSION_TOKEN_HEADER]: body.session_token });
}

/**
 * 409 ALREADY_ANSWERED means the presentation's answer is stored (the first one counts, whatever was done since):
 * that is a saved answer, and the participant moves on.
 */
async function postAnswer(path: string, body: unknown, idempotencyKey: string, headers: Record<string, string> = {}): Promise<RatingAck> {
  try {
    const res = await withRetry(() => http.post<RatingAck>(path, body, { headers: { 'Idempotency-Key': idempotencyKey, ...headers } }), {
      attempts: 3,
      baseDelayMs: 400,
      shouldRetry: isTransient,
      onRetry: (error, attempt) => console.log(`${path} post failed (try ${attempt}), retrying`, error),
    });
    return res.data;
  } catch (error) {
    const stored = (errorBodyOf(error) as { answer?: RatingAck & { value?: number; nbReplay?: number; screening_no?: number } }).answer;
    if (statusOf(error) === 409 && errorBodyOf(error).error === 'ALREADY_ANSWERED' && stored) {
      const { value, nbReplay, screening_no, ...ack } = stored;
      return { ...ack, alreadyAnswered: { value, nbReplay, screening_no } };
    }
    throw error;
  }
}

/** A post that can never succeed (the session is gone, completed, or not this page's): the outbox drops it. */
export function isPermanentAnswerFailure(error: unknown): boolean {
  const status = statusOf(error);
  return status !== null && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** POST /api/consent/: the signed lab consent form; the answer is its PDF copy (null on failure: the flow continues). */
export async function postConsent(body: ConsentBody): Promise<Blob | null> {
  try {
    return (await http.post<Blob>('/api/consent/', body, { responseType: 'blob' })).data;
  } catch (error) {
    console.log('consent: the signed copy could not be obtained; continuing', error);
    return null;
  }
}

/**
 * GET /api/sessions/token/{token}. The server answers 409 INCOMPLETE until every rating is stored: keep asking
 * (with a growing pause) until the code comes or `signal` aborts. Other failures are logged and retried too,
 * since a code must never be lost to a passing network error.
 */
export async function waitForVerificationCode(token: string, signal: AbortSignal, onIncomplete?: () => void): Promise<string | null> {
  for (let attempt = 0; !signal.aborted; attempt++) {
    try {
      const res = await http.get<{ verification_code: string }>(`/api/sessions/token/${encodeURIComponent(token)}`, { signal });
      return res.data.verification_code;
    } catch (error) {
      if (signal.aborted) return null;
      if (statusOf(error) === 409) onIncomplete?.();
      else console.log('verification code call failed', error);
      if (statusOf(error) === 404 || statusOf(error) === 403) return null;
      await sleep(Math.min(500 * 2 ** attempt, 5000));
    }
  }
  return null;
}

export async function postSessionLogs(body: SessionLogsBody): Promise<boolean> {
  try {
    await http.post(SESSION_LOGS_PATH, body, { headers: { [SESSION_TOKEN_HEADER]: body.sessionToken } });
    return true;
  } catch (error) {
    console.log('session logs post failed', error);
    return false;
  }
}

/** Page being closed: the browser sends the beacon after the page is gone (a JSON Blob keeps the content type). */
export function beaconSessionLogs(body: SessionLogsBody): boolean {
  if (typeof navigator.sendBeacon !== 'function') return false;
  return navigator.sendBeacon(SESSION_LOGS_PATH, new Blob([JSON.stringify(body)], { type: 'application/json' }));
}
