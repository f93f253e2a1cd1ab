import { createStore, type StateCreator, type StoreApi } from 'zustand/vanilla';
import type { JobResponse } from '../../contract/job.js';
import type { PlaylistResponse, PlaylistStimulus } from '../../contract/playlist.js';
import type { Protocol } from '../../contract/protocols.js';
import type { LoadedMedia } from '../stage/types.js';
import { InteractionLogger } from './interactionLogger.js';
import type { LoadFigures } from './loadProgress.js';
import { SessionLogsSender } from './logsSender.js';
import { initialFlowState, isTerminal, statusOf, transition, type FlowEvent, type FlowState } from './phases.js';
import type { PageQuery } from './query.js';

/**
 * One zustand store per test page, combined from slices. React components subscribe to the few low-rate
 * fields they show; the interaction logger (high-rate pointer data) lives beside the store, never in it.
 */

export interface FlowSlice {
  flow: FlowState;
  /** Run the pure machine; every change is logged as {state, status, time}; a terminal phase sends the logs. */
  dispatch(event: FlowEvent): void;
}

export interface SessionSlice {
  jobId: string;
  /** The page's protocol: a rating protocol on the generic page, or 'piiface' / 'bubble' on their own pages. */
  protocol: Protocol;
  query: PageQuery;
  job: JobResponse | null;
  bcheckId: number | null;
  playlist: PlaylistResponse<PlaylistStimulus> | null;
  /** Messages of the failed eligibility checks, shown again on the eligibility-failed screen. */
  eligibilityMessages: string[];
  setJob(job: JobResponse): void;
  setEligibilityMessages(messages: string[]): void;
  setBcheckId(id: number | null): void;
  setPlaylist(playlist: PlaylistResponse<PlaylistStimulus>): void;
}

export interface MediaSlice {
  loadFigures: LoadFigures | null;
  /** Downloaded media by name; set once when loading ends. */
  media: ReadonlyMap<string, LoadedMedia> | null;
  setLoadFigures(figures: LoadFigures): void;
  setMedia(media: ReadonlyMap<string, LoadedMedia>): void;
}

export type GlimpseState = FlowSlice & SessionSlice & MediaSlice;

/** Non-reactive companions of the store. */
export interface StoreExtras {
  logger: InteractionLogger;
  logsSender: SessionLogsSender;
}

export type GlimpseStore = StoreApi<GlimpseState> & StoreExtras;

const flowSlice =
  (extras: () => StoreExtras): StateCreator<GlimpseState, [], [], FlowSlice> =>
  (set, get) => ({
    flow: initialFlowState(),
    dispatch(event) {
      const before = get().flow;
      const after = transition(before, event);
      if (after === before) return;
      set({ flow: after });
      if (after.phase !== before.phase || statusOf(after) !== statusOf(before)) {
        extras().logger.logState(after.phase, statusOf(after));
      }
      if (isTerminal(after.phase)) void extras().logsSender.send();
    },
  });

const sessionSlice =
  (init: { jobId: string; protocol: Protocol; query: PageQuery }): StateCreator<GlimpseState, [], [], SessionSlice> =>
  (set) => ({
    ...init,
    job: null,
    bcheckId: null,
    playlist: null,
    eligibilityMessages: [],
    setJob: (job) => set({ job }),
    setEligibilityMessages: (eligibilityMessages) => set({ eligibilityMessages }),
    setBcheckId: (bcheckId) => set({ bcheckId }),
    setPlaylist: (playlist) => set({ playlist }),
  });

const mediaSlice: StateCreator<GlimpseState, [], [], MediaSlice> = (set) => ({
  loadFigures: null,
  media: null,
  setLoadFigures: (loadFigures) => set({ loadFigures }),
  setMedia: (media) => set({ media }),
});

export function createGlimpseStore(init: { jobId: string; protocol: Protocol; query: PageQuery }, logger = new InteractionLogger()): GlimpseStore {
  let extras: StoreExtras | null = null;
  const api = createStore<GlimpseState>()((...a) => ({
    ...flowSlice(() => extras!)(...a),
    ...sessionSlice(init)(...a),
    ...mediaSlice(...a),
  }));
  extras = { logger, logsSender: new SessionLogsSender(logger, () => api.getState().playlist?.sessionToken ?? null) };
  logger.logState(api.getState().flow.phase, statusOf(api.getState().flow));
  return Object.assign(api, extras);
}
