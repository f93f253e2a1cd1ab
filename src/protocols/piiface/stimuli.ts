import type { PiifacePlaylistStimulus } from '../../contract/playlist.js';

/**
 * The shared store types its playlist for the generic page; the piiface playlist (GET /api/getpiiface/{id})
 * carries {stimuli_id, type, source} stimuli instead. Checked here at run time rather than cast, so a job of the
 * wrong shape ends on the incompatible-configuration screen instead of failing half-way through the test.
 */
export function readPiifaceStimuli(list: readonly unknown[]): PiifacePlaylistStimulus[] | null {
  const out: PiifacePlaylistStimulus[] = [];
  for (const item of list) {
    if (typeof item !== 'object' || item === null) return null;
    const { stimuli_id, type, source } = item as Record<string, unknown>;
    if (!Number.isInteger(stimuli_id) || typeof type !== 'string' || typeof source !== 'string' || source === '') return null;
    out.push({ stimuli_id: stimuli_id as number, type, source });
  }
  return out;
}
