/** Playlist shapes as served by the server (SPEC §3, §7). Types only: safe to import from the web bundle. */
import type { ObjectOptions } from './objects.js';

// Sources are media names: keys into mediaRessources.
export interface PlaylistStimulus {
  stimuliId: number;
  sourceA?: string;
  sourceB?: string;
  sourceC?: string;
  sourceD?: string;
  source?: string;
  reversed: boolean;
  value?: number;
  /** The stimulus's own 3D presentation options (docs/3d-objects.md), when its study file gives them. */
  object?: ObjectOptions;
}
export interface BubbleMedia {
  stimuli_id: number;
  source: string;
  height: number;
  width: number;
  blur: number;
  radius: number;
  golden: boolean;
}
export interface BubblePlaylistStimulus {
  stimuli_id: number;
  sourceA: BubbleMedia;
  sourceB?: BubbleMedia;
}
export interface PiifacePlaylistStimulus {
  stimuli_id: number;
  type: string;
  source: string;
}
/** Playlist answer of SPEC §7. session_id/sessionToken are null for an MTurk preview. */
export interface PlaylistResponse<S = unknown> {
  jobId: string;
  playlistId: number;
  stimulis: S[];
  stimulis_training: S[];
  mediaRessources: string[];
  /** Extension: the size in bytes of each mediaRessources entry (null when unknown), so loading knows its total. */
  mediaSizes?: Array<number | null>;
  session_id: number | null;
  sessionToken: string | null;
  type: string;
  /** Extension: this participant's unfinished session was given back (a reload, a second tab). */
  resumed?: boolean;
  /** Extension: test stimuli of the session already answered; the page goes on from the first one not in it. */
  answered_stimuli?: number[];
}

/**
 * Extension (docs/data-safety.md "Participant continuity"): the answer of POST /api/visits/{id}, made when the page
 * shows the eligibility checks. Nothing is held for a visitor; the playlist call made once the checks are passed starts
 * the session (and is sent `visit` to mark this visit started).
 */
export interface VisitResponse {
  /** The visit logged for a new visitor; null when none was (a session to resume, a researcher's or MTurk preview). */
  visit: string | null;
  /** This participant has an unfinished session of the job: the playlist call gives it back at once. */
  resumable: boolean;
}

export { RESUME_TOKEN_HEADER } from './headers.js';
