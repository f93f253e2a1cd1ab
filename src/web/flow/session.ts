import type { BcheckBody } from '../../contract/payloads.js';
import { stringsFor, type Strings } from '../i18n/index.js';
import { getJob, getPlaylist, postBcheck } from './api.js';
import { loadMedia, readMediaBase } from './mediaLoader.js';
import { playlistParams } from './query.js';
import type { GlimpseStore } from './store.js';

/**
 * The effects of the flow (SPEC §7 calls), as plain async functions over the store. Each ends by dispatching
 * an event to the pure phase machine; failures the spec calls "only logged" are logged in api.ts.
 */

export function stringsOf(store: GlimpseStore): Strings {
  return stringsFor(store.getState().query.platform);
}

/** Landing: read the job. A failure shows the failure screen; a job of another protocol is incompatible. */
export async function loadJob(store: GlimpseStore): Promise<void> {
  const { jobId, protocol, query, dispatch, setJob } = store.getState();
  try {
    const job = await getJob(jobId);
    setJob(job);
    dispatch({
      type: 'JOB_LOADED',
      config: { visualTests: (job.visualTests?.length ?? 0) > 0, consentForm: query.platform === 'nantes' && query.email !== null },
    });
    if (job.subjectiveProtocol !== protocol) {
      console.log(`job ${jobId} is a ${job.subjectiveProtocol} job, not ${protocol}`);
      dispatch({ type: 'CONFIG_INCOMPATIBLE' });
    }
  } catch (error) {
    console.log('job call failed', error);
    dispatch({ type: 'JOB_FAILED' });
  }
}

/**
 * Eligibility: POST /api/bchecks/ first (its id becomes bcheckId, null on failure). When every check passed,
 * the playlist is asked for right away (it needs bcheckId), so a repeat participant learns it before reading the
 * instructions, and a participant who fails eligibility never gets a session.
 */
export async function submitBrowserCheck(store: GlimpseStore, body: BcheckBody, eligible: boolean): Promise<void> {
  const id = await postBcheck(body);
  store.getState().setBcheckId(id);
  if (eligible) await fetchPlaylist(store);
}

const playlistRequests = new WeakMap<GlimpseStore, Promise<void>>();

/** Asks for the playlist once per page (store). */
export function fetchPlaylist(store: GlimpseStore): Promise<void> {
  const pending = playlistRequests.get(store);
  if (pending) return pending;
  const request = (async () => {
    const { protocol, jobId, query, bcheckId } = store.getState();
    const result = await getPlaylist<never>(protocol, jobId, playlistParams(query, bcheckId));
    const { dispatch, setPlaylist } = store.getState();
    if (result.kind === 'alreadyCompleted') return dispatch({ type: 'ALREADY_COMPLETED' });
    if (result.kind === 'failed') return dispatch({ type: 'PLAYLIST_FAILED' });
    setPlaylist(result.playlist);
    dispatch({ type: 'PLAYLIST_LOADED', hasTraining: result.playlist.stimulis_training.length > 0 });
  })();
  playlistRequests.set(store, request);
  return request;
}

const mediaRequests = new WeakMap<GlimpseStore, Promise<void>>();

/** Loading: download every media of the playlist once (training and test); later Loading phases reuse them. */
export function loadPlaylistMedia(store: GlimpseStore): Promise<void> {
  const pending = mediaRequests.get(store);
  if (pending) return pending;
  const request = (async () => {
    const names = store.getState().playlist?.mediaRessources ?? [];
    const media = await loadMedia(names, {
      base: readMediaBase(document),
      onProgress: (figures) => store.getState().setLoadFigures(figures),
    });
    store.getState().setMedia(media);
  })();
  mediaRequests.set(store, request);
  return request;
}
