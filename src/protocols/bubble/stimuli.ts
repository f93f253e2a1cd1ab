/**
 * The bubble playlist's stimuli (contract BubblePlaylistStimulus), checked at run time (the store types the
 * playlist for the generic page), and their order (rs=1: random).
 */
import type { BubbleMedia, BubblePlaylistStimulus } from '../../contract/playlist.js';

function isBubbleMedia(value: unknown): value is BubbleMedia {
  if (!value || typeof value !== 'object') return false;
  const m = value as Record<string, unknown>;
  return typeof m.source === 'string' && [m.width, m.height, m.blur, m.radius].every((n) => typeof n === 'number' && Number.isFinite(n));
}

/** The list as bubble stimuli, or null when it holds anything else (a playlist of another protocol). */
export function readBubbleStimuli(list: readonly unknown[]): BubblePlaylistStimulus[] | null {
  const ok = list.every((s) => {
    if (!s || typeof s !== 'object') return false;
    const st = s as Record<string, unknown>;
    return typeof st.stimuli_id === 'number' && isBubbleMedia(st.sourceA) && (st.sourceB === undefined || isBubbleMedia(st.sourceB));
  });
  return ok ? (list as BubblePlaylistStimulus[]) : null;
}

/** rs=1: a uniformly random order (Fisher-Yates); otherwise the playlist's order. Never changes `list`. */
export function orderStimuli<T>(list: readonly T[], random: boolean, rand: () => number = Math.random): T[] {
  const out = [...list];
  if (!random) return out;
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
