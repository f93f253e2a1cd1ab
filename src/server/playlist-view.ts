import type { AnyPlaylistStimulus, BubbleMedia, PlaylistStimulus } from '../contract/playlist.js';
import type { Protocol } from '../contract/protocols.js';
import type { StudyBubbleStimulus, StudyPiifaceStimulus, StudyStimulus } from '../contract/stimulus.js';
import { mediaNameOf } from './media-store.js';
import type { StoredStimulus } from './storage/jobs.js';

const GENERIC_SOURCES = ['sourceA', 'sourceB', 'sourceC', 'sourceD', 'source'] as const;

/**
 * A stored stimulus as the playlist answer shows it (SPEC §3, contract/playlist.ts): file paths become media
 * names "{jobId}/{path}"; the generic shape spells its id stimuliId, bubble and piiface spell it stimuli_id.
 */
export function playlistStimulus(protocol: Protocol, jobId: string, stimulus: StoredStimulus): AnyPlaylistStimulus {
  const media = (path: string) => mediaNameOf(jobId, path);
  if (protocol === 'bubble') {
    const spec = stimulus.spec as StudyBubbleStimulus;
    const side = (m: StudyBubbleStimulus['sourceA']): BubbleMedia => ({
      stimuli_id: stimulus.id,
      source: media(m.source),
      height: m.height,
      width: m.width,
      blur: m.blur,
      radius: m.radius,
      golden: m.golden ?? false,
    });
    return { stimuli_id: stimulus.id, sourceA: side(spec.sourceA), ...(spec.sourceB ? { sourceB: side(spec.sourceB) } : {}) };
  }
  if (protocol === 'piiface') {
    const spec = stimulus.spec as StudyPiifaceStimulus;
    return { stimuli_id: stimulus.id, type: spec.type, source: media(spec.source) };
  }
  const spec = stimulus.spec as StudyStimulus;
  const out: PlaylistStimulus = { stimuliId: stimulus.id, reversed: spec.reversed ?? false };
  for (const key of GENERIC_SOURCES) if (spec[key]) out[key] = media(spec[key]);
  if (spec.value !== undefined) out.value = spec.value;
  return out;
}

/** Every media name of these stimuli, each once, in order of first use (the client loads them in this order). */
export function mediaOf(stimuli: AnyPlaylistStimulus[]): string[] {
  const names = new Set<string>();
  for (const s of stimuli) {
    if ('type' in s) names.add(s.source);
    else if ('stimuli_id' in s) {
      names.add(s.sourceA.source);
      if (s.sourceB) names.add(s.sourceB.source);
    } else for (const key of GENERIC_SOURCES) if (s[key]) names.add(s[key]);
  }
  return [...names];
}
