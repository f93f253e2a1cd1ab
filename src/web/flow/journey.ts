import { stringsFor, type Strings } from '../i18n/index.js';
import { allPass, checkEligibility as evaluateChecks } from '../screens/eligibility/rules.js';
import { CONSENT_PDF_FILENAME, downloadBlob } from '../screens/consent/downloadFile.js';
import { answerPipelineOf } from './answers.js';
import { getJob, getPlaylist, postBcheck, postConsent, postVisit, waitForVerificationCode, type Refusal, type VisitResult } from './api.js';
import { loadMedia, readMediaBase } from './mediaLoader.js';
import type { FlowEvent, FlowState } from './phases.js';
import type { PlaylistResponse } from '../../contract/playlist.js';
import { playlistParams } from './query.js';
import type { GlimpseStore } from './store.js';

/**
 * The participant's journey: the effects of the phase machine (phases.ts). Entering a phase, or a user event,
 * starts its effects here, and nowhere else; screens only show the store and dispatch user events. Every server
 * call of the journey is in this file (answers go through answers.ts):
 *
 *   start                           GET  /api/jobs/{id}                 → JOB_LOADED | JOB_FAILED | CONFIG_INCOMPATIBLE
 *   Eligibility (checks) entered    measure the browser (SPEC §5 rules) → POST /api/bchecks/ → if eligible
 *                                   POST /api/visits/{id}               → ALREADY_COMPLETED | STUDY_NOT_OPEN | a visit (holds nothing)
 *                                   | resumable: GET /api/{playlistPath}/{id} at once → PLAYLIST_LOADED
 *   ELIGIBILITY_PASSED (Continue)   a new visitor: GET /api/{playlistPath}/{id}?visit=… (the session starts)
 *                                   → PLAYLIST_LOADED | ALREADY_COMPLETED | STUDY_FULL | STUDY_NOT_OPEN | PLAYLIST_FAILED
 *   CONSENT_SIGNED                  POST /api/consent/ (PDF copy downloaded) → CONSENT_DONE
 *   Loading entered                 GET  /resmedias/... (every media once) → LOADING_DONE after 1 s (not large-loading)
 *   Eligibility measured            the answer outbox is drained first (answers an earlier page left), then the visit
 *   Result entered                  wait for unsaved answers, drain the outbox, then GET /api/sessions/token/{token}
 *                                   until the code comes
 *   Fail / FailEligibility / Result POST /api/sessionlogs/ (store.ts; a beacon when the page closes first)
 */

/** Pause on 'Test will start soon!' before the test starts by itself. */
export const AUTO_START_DELAY_MS = 1000;

export interface JourneyOptions {
  /** Extra parameters of the playlist call from the protocol's web part (bubble: ft=1), once it is loaded. */
  playlistQuery: Promise<Record<string, string>>;
  win?: Window;
}

export function stringsOf(store: GlimpseStore): Strings {
  return stringsFor(store.getState().query.platform);
}

/** Starts the journey of a page's store; returns the function that stops it (page unmount). */
export function startJourney(store: GlimpseStore, options: JourneyOptions): () => void {
  const win = options.win ?? window;
  const stop = new AbortController();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };

  // The visit's answer once the checks are measured (null: not eligible, or the page failed meanwhile).
  let visit: Promise<VisitResult | null> = Promise.resolve(null);
  const onEvent = (event: FlowEvent, before: FlowState, after: FlowState) => {
    if (stop.signal.aborted) return;
    const entered = (phase: FlowState['phase']) => after.phase === phase && before.phase !== phase;
    if (event.type === 'CONSENT_SIGNED') void submitConsent(store, event.form);
    if (entered('Eligibility') && after.eligibilityStep === 'checks') visit = checkEligibility(store, options.playlistQuery, win);
    // Continue: a new visitor's session starts now (the visit may still be on its way: Continue shows with the checks).
    if (event.type === 'ELIGIBILITY_PASSED' && after !== before) void startSession(store, visit, options.playlistQuery, stop.signal, win);
    if (entered('Loading')) void loadPlaylistMedia(store, win.document).then(autoStart);
    if (entered('Result')) void fetchVerificationCode(store, stop.signal, win);
  };
  const autoStart = () => {
    const { job, flow } = store.getState();
    if (flow.phase !== 'Loading' || job?.largeLoading === true) return;
    later(AUTO_START_DELAY_MS, () => store.getState().dispatch({ type: 'LOADING_DONE' }));
  };

  const detach = store.onFlowEvent(onEvent);
  void loadJob(store);
  return () => {
    stop.abort();
    detach();
    for (const timer of timers) clearTimeout(timer);
  };
}

/** Landing: read the job. A failure shows the failure screen; a job of another protocol is incompatible. */
async function loadJob(store: GlimpseStore): Promise<void> {
  const { jobId, protocol, query, dispatch, set } = store.getState();
  try {
    const job = await getJob(jobId);
    set({ job });
    dispatch({
      type: 'JOB_LOADED',
      config: { visualTests: (job.visualTests?.length ?? 0) > 0, consentForm: query.platform === 'nantes' && query.email !== null },
    });
    if (job.subjectiveProtocol !== protocol.name) {
      console.log(`job ${jobId} is a ${job.subjectiveProtocol} job, not ${protocol.name}`);
      dispatch({ type: 'CONFIG_INCOMPATIBLE' });
    }
  } catch (error) {
    console.log('job call failed', error);
    dispatch({ type: 'JOB_FAILED' });
  }
}

/**
 * Eligibility: measure the browser against the protocol's rules, POST /api/bchecks/ (its id becomes bcheckId, null
 * on failure), and when every check passed, the visit: a repeat participant or a study not open is told before
 * reading anything else, and a participant with a session in progress gets it back at once (it is theirs already).
 * A new visitor holds nothing yet: their session starts on Continue (startSession), so one who leaves here, or fails
 * eligibility, never takes a playlist slot (issue 35).
 */
async function checkEligibility(store: GlimpseStore, playlistQuery: Promise<Record<string, string>>, win: Window): Promise<VisitResult | null> {
  // ua-parser-js is a chunk of its own, fetched while the job loads.
  const { measureEnvironment, bcheckBody } = await import('../screens/eligibility/environment.js');
  const { job, query, protocol } = store.getState();
  if (!job || store.getState().flow.phase !== 'Eligibility') return null;
  const env = measureEnvironment(win, protocol.eligibility, job, query.phone && (query.vertical || query.horizontal));
  if (job.minRefreshHz !== undefined) {
    const { measureRefreshMs } = await import('../screens/eligibility/refreshRate.js');
    env.refreshMs = await measureRefreshMs(win);
    if (store.getState().flow.phase !== 'Eligibility') return null;
  }
  const results = evaluateChecks(env, stringsOf(store));
  store.getState().set({ eligibility: results });
  store.getState().set({ bcheckId: await postBcheck(bcheckBody(env)) });
  if (!allPass(results)) return null;
  // Answers an earlier page left in the outbox go first, so the resumed session starts after them.
  await answerPipelineOf(store, win).drain();
  const { jobId, bcheckId } = store.getState();
  const extra = await playlistQuery;
  const result = await postVisit(jobId, { ...playlistParams(query, bcheckId), ...extra }, keptSessions(win)?.read(jobId) ?? null);
  if (result.kind === 'resumable') await fetchPlaylist(store, extra, null, win);
  else if (result.kind !== 'new') refused(store, result);
  return result;
}

/** Continue on the eligibility screen: a new visitor's session starts (their visit marked started). */
async function startSession(store: GlimpseStore, visit: Promise<VisitResult | null>, playlistQuery: Promise<Record<string, string>>, signal: AbortSignal, win: Window): Promise<void> {
  const answer = await visit;
  if (answer?.kind !== 'new' || signal.aborted) return;
  await fetchPlaylist(store, await playlistQuery, answer.visit, win);
}

function refused(store: GlimpseStore, refusal: Refusal): void {
  const { dispatch } = store.getState();
  if (refusal.kind === 'alreadyCompleted') return dispatch({ type: 'ALREADY_COMPLETED' });
  if (refusal.kind === 'studyFull') return dispatch({ type: 'STUDY_FULL' });
  if (refusal.kind === 'notOpen') return dispatch({ type: 'STUDY_NOT_OPEN', status: refusal.status });
  dispatch({ type: 'PLAYLIST_FAILED' });
}

async function fetchPlaylist(store: GlimpseStore, extra: Record<string, string>, visit: string | null, win: Window): Promise<void> {
  const { protocol, jobId, query, bcheckId } = store.getState();
  const kept = keptSessions(win);
  const params = { ...playlistParams(query, bcheckId), ...extra, ...(visit === null ? {} : { visit }) };
  const result = await getPlaylist<unknown>(protocol.playlistPath, jobId, params, kept?.read(jobId) ?? null);
  if (result.kind !== 'ok') return refused(store, result);
  const { playlist } = result;
  if (playlist.sessionToken) kept?.write(jobId, playlist.sessionToken);
  store.getState().set({ playlist });
  store.getState().dispatch({ type: 'PLAYLIST_LOADED', hasTraining: playlist.stimulis_training.length > 0, resumeAt: resumeIndex(playlist) });
}

/** Where a resumed session goes on: the first test stimulus without a stored answer (0 for a new session). */
export function resumeIndex(playlist: PlaylistResponse<unknown>): number {
  const answered = new Set(playlist.answered_stimuli ?? []);
  if (answered.size === 0) return 0;
  const next = playlist.stimulis.findIndex((s) => !answered.has(stimulusIdOf(s) ?? -1));
  return next === -1 ? playlist.stimulis.length : next;
}

const stimulusIdOf = (s: unknown) => {
  const stimulus = s as { stimuliId?: number; stimuli_id?: number };
  return stimulus.stimuliId ?? stimulus.stimuli_id;
};

/**
 * The session token of each job this browser took part in (localStorage), sent with the visit and the playlist call
 * so that a participant without a platform id resumes their session after a reload. The server honours it only for a
 * link without a platform id: on a shared computer the next person's own id decides. null where storage is
 * unavailable.
 */
function keptSessions(win: Window): { read(jobId: string): string | null; write(jobId: string, token: string): void } | null {
  let storage: Storage;
  try {
    storage = win.localStorage;
    if (!storage) return null;
  } catch {
    return null; // storage blocked (privacy settings): a reload starts over for anonymous participants
  }
  const key = (jobId: string) => `glimpse-session:${jobId}`;
  return {
    read: (jobId) => storage.getItem(key(jobId)),
    write: (jobId, token) => {
      try {
        storage.setItem(key(jobId), token);
      } catch (error) {
        console.log('session token not kept', error);
      }
    },
  };
}

/** SPEC §7: the consent post's answer is the PDF copy; on error the flow continues anyway. */
async function submitConsent(store: GlimpseStore, form: Parameters<typeof postConsent>[0]): Promise<void> {
  const pdf = await postConsent(form);
  if (pdf) downloadBlob(pdf, CONSENT_PDF_FILENAME);
  store.getState().dispatch({ type: 'CONSENT_DONE' });
}

const mediaRequests = new WeakMap<GlimpseStore, Promise<void>>();

/** Loading: download every media of the playlist once (training and test); a later Loading phase reuses them. */
export function loadPlaylistMedia(store: GlimpseStore, doc: Document): Promise<void> {
  const pending = mediaRequests.get(store);
  if (pending) return pending;
  const request = (async () => {
    const playlist = store.getState().playlist;
    const media = await loadMedia(playlist?.mediaRessources ?? [], {
      base: readMediaBase(doc),
      sizes: playlist?.mediaSizes,
      onProgress: (figures) => store.getState().setLoadFigures(figures),
    });
    store.getState().setMedia(media);
  })();
  mediaRequests.set(store, request);
  return request;
}

/**
 * Result: the code is asked for only once every answer handed to the pipeline has been answered by the server,
 * and the server gives it only once every answer of the playlist is stored (409 INCOMPLETE before: ask again).
 */
async function fetchVerificationCode(store: GlimpseStore, signal: AbortSignal, win: Window): Promise<void> {
  const token = store.getState().playlist?.sessionToken;
  if (!token) return;
  // Nothing may wait in the outbox when the code is asked for (the server would answer INCOMPLETE meanwhile).
  await new Promise<void>((resolve) => {
    if (store.getState().unsavedAnswers === 0) return resolve();
    const unsubscribe = store.subscribe((s) => {
      if (s.unsavedAnswers === 0 || signal.aborted) {
        unsubscribe();
        resolve();
      }
    });
  });
  await answerPipelineOf(store, win).drainUntilEmpty(signal);
  const code = await waitForVerificationCode(token, signal);
  if (!signal.aborted) store.getState().set({ verificationCode: code });
}
