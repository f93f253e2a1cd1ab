/** Playlist shapes as served by the server (SPEC §3, §7). Types only: safe to import from the web bundle. */

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
export type AnyPlaylistStimulus = PlaylistStimulus | BubblePlaylistStimulus | PiifacePlaylistStimulus;

/** Stimulus id whatever its spelling (stimuliId generic, stimuli_id bubble/piiface). */
export function stimulusIdOf(s: AnyPlaylistStimulus): number {
  return 'stimuliId' in s ? s.stimuliId : s.stimuli_id;
}

/** Playlist answer of SPEC §7. session_id/sessionToken are null for an MTurk preview. */
export interface PlaylistResponse<S = AnyPlaylistStimulus> {
  jobId: string;
  playlistId: number;
  stimulis: S[];
  stimulis_training: S[];
  mediaRessources: string[];
  session_id: number | null;
  sessionToken: string | null;
  type: string;
}
