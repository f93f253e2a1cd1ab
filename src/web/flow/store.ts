import { createStore, type StateCreator, type StoreApi } from 'zustand/vanilla';
import type { JobResponse } from '../../contract/job.js';
import type { PlaylistResponse } from '../../contract/playlist.js';
import type { ProtocolDefinition } from '../../protocols/types.js';
import type { CheckResult } from '../screens/eligibility/rules.js';
import type { LoadedMedia } from '../stage/types.js';
import { InteractionLogger } from './interactionLogger.js';
import type { LoadFigures } from './loadProgress.js';
import { SessionLogsSender } from './logsSender.js';
import { initialFlowState, isTerminal, statusOf, transition, type FlowEvent, type FlowState } from './phases.js';
import type { PageQuery } from './query.js';

/**
 * One zustand store per participant page, combined from slices. React components subscribe to the few low-rate
 * fields they show; the interaction logger (high-rate pointer data) lives beside the store, never in it.
 */

export interface FlowSlice {
  flow: FlowState;
  /** Run the pure machine; every change is logged as {state, status, time}; a terminal phase sends the logs. */
  dispatch(event: FlowEvent): void;
}

export interface SessionSlice {
  jobId: string;
  /** The page's protocol (its route chose it). */
  protocol: ProtocolDefinition;
  query: PageQuery;
  job: JobResponse | null;
  bcheckId: number | null;
  /** Stimuli typed by each protocol's web part (the generic shape, bubble's or piiface's). */
  playlist: PlaylistResponse<unknown> | null;
  /** The eligibility checks of SPEC §5 as measured (null until measured); the failed screen repeats their messages. */
  eligibility: CheckResult[] | null;
  /** The verification code: undefined while waiting for it, null when the server has none for this session. */
  verificationCode: string | null | undefined;
  set(patch: Partial<Pick<SessionSlice, 'job' | 'bcheckId' | 'playlist' | 'eligibility' | 'verificationCode'>>): void;
}

export interface MediaSlice {
  loadFigures: LoadFigures | null;
  /** Downloaded media by name; set once when loading ends. */
  media: ReadonlyMap<string, LoadedMedia> | null;
  setLoadFigures(figures: LoadFigures): void;
  setMedia(media: ReadonlyMap<string, LoadedMedia>): void;
}

/** Where the Test phase stands, written by the protocol's runner (progress tracker, logs, e2e probes). */
export interface TrialPosition {
  training: boolean;
  /** 0-based index of the stimulus on screen, and the run's length. */
  index: number;
  total: number;
}

export interface TrialSlice {
  trial: TrialPosition | null;
  /** Answers handed to the pipeline and not yet acknowledged by the server. */
  unsavedAnswers: number;
  /** An answer's post failed after its retries: the page says it is still saving (SPEC §4: it does not advance). */
  saveTrouble: boolean;
  /**
   * The server already had an answer for the presentation just answered (a lost acknowledgement, another tab) and
   * kept that one: the page says which answer counts.
   */
  keptAnswer: { stimulusId: number; value: number } | null;
  setTrial(trial: TrialPosition | null): void;
  setSaving(patch: Partial<Pick<TrialSlice, 'unsavedAnswers' | 'saveTrouble' | 'keptAnswer'>>): void;
}

export type GlimpseState = FlowSlice & SessionSlice & MediaSlice & TrialSlice;

/** Called for every dispatched event with the state before and after it (the journey's effects listen here). */
export type FlowListener = (event: FlowEvent, before: FlowState, after: FlowState) => void;

/** Non-reactive companions of the store. */
export interface StoreExtras {
  logger: InteractionLogger;
  logsSender: SessionLogsSender;
  onFlowEvent(listener: FlowListener): () => void;
}

export type GlimpseStore = StoreApi<GlimpseState> & StoreExtras;

const flowSlice =
  (extras: () => StoreExtras, listeners: Set<FlowListener>): StateCreator<GlimpseState, [], [], FlowSlice> =>
  (set, get) => ({
    flow: initialFlowState(),
    dispatch(event) {
      const before = get().flow;
      const after = transition(before, event);
      if (after !== before) {
        set({ flow: after });
        if (after.phase !== before.phase || statusOf(after) !== statusOf(before)) extras().logger.logState(after.phase, statusOf(after));
        if (isTerminal(after.phase)) void extras().logsSender.send();
      }
      for (const listener of listeners) listener(event, before, after);
    },
  });

const sessionSlice =
  (init: { jobId: string; protocol: ProtocolDefinition; query: PageQuery }): StateCreator<GlimpseState, [], [], SessionSlice> =>
  (set) => ({
    ...init,
    job: null,
    bcheckId: null,
    playlist: null,
    eligibility: null,
    verificationCode: undefined,
    set: (patch) => set(patch),
  });

const mediaSlice: StateCreator<GlimpseState, [], [], MediaSlice> = (set) => ({
  loadFigures: null,
  media: null,
  setLoadFigures: (loadFigures) => set({ loadFigures }),
  setMedia: (media) => set({ media }),
});

const trialSlice: StateCreator<GlimpseState, [], [], TrialSlice> = (set) => ({
  trial: null,
  unsavedAnswers: 0,
  saveTrouble: false,
  keptAnswer: null,
  setTrial: (trial) => set({ trial }),
  setSaving: (patch) => set(patch),
});

export function createGlimpseStore(init: { jobId: string; protocol: ProtocolDefinition; query: PageQuery }, logger = new InteractionLogger()): GlimpseStore {
  let extras: StoreExtras | null = null;
  const listeners = new Set<FlowListener>();
  const api = createStore<GlimpseState>()((...a) => ({
    ...flowSlice(() => extras!, listeners)(...a),
    ...sessionSlice(init)(...a),
    ...mediaSlice(...a),
    ...trialSlice(...a),
  }));
  extras = {
    logger,
    logsSender: new SessionLogsSender(logger, () => api.getState().playlist?.sessionToken ?? null),
    onFlowEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  logger.logState(api.getState().flow.phase, statusOf(api.getState().flow));
  return Object.assign(api, extras);
}
