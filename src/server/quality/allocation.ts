import { DEFAULT_STOP_LEVEL, meanHalfWidth, type ScoreMoments } from '../../analysis/precision.js';
import type { MediaAttributes } from '../../contract/study.js';
import type { ProtocolDefinition } from '../../protocols/types.js';
import type { StoredJob } from '../storage/jobs.js';
import { playlistLoadRows } from '../storage/precision.js';
import { jobMedia } from '../storage/studies.js';
import { resultStimuli } from './precision.js';
import type { Storage } from '../storage/types.js';

/**
 * Adaptive allocation for rating protocols (issue 38 item 4, docs/quality.md "Adaptive allocation"): with
 * `quality.allocation: "widest-intervals"`, a new participant gets the playlist whose stimuli's intervals are the
 * widest, instead of the least loaded one. Within the balancing constraints: a playlist that has its target of
 * accepted observers takes no one, as always, and the arrival itself (the lock, the lease, the one-session rule,
 * resume) is unchanged: this only names the playlist it should choose, and a playlist that filled meanwhile falls
 * back to the usual choice.
 *
 * A playlist's need, compared in this order:
 *  1. how many of its stimuli have no interval yet (fewer than 2 included scores);
 *  2. the sum of its stimuli's half-widths, each shrunk as the sessions already running on the playlist will shrink
 *     it: h · √(n / (n + running)), so that arrivals at the same moment do not all pile onto one playlist;
 *  then the usual tie-breaks: the lower load, then the lower id.
 */

export interface PlaylistNeed {
  id: number;
  load: number;
  withoutInterval: number;
  halfWidths: number;
}

/** Orders playlists by need (neediest first); exported for the tests of the rule itself. */
export function byNeed(a: PlaylistNeed, b: PlaylistNeed): number {
  return b.withoutInterval - a.withoutInterval || b.halfWidths - a.halfWidths || a.load - b.load || a.id - b.id;
}

/**
 * The playlist a new participant of this job should get; null when the job does not allocate by intervals, or
 * every playlist has its target (the arrival then refuses as usual).
 */
export async function widestIntervalPlaylist(
  storage: Storage,
  job: StoredJob,
  protocol: ProtocolDefinition,
  moments: () => Promise<Map<string, ScoreMoments>>,
): Promise<number | null> {
  const adapter = protocol.analysis;
  if (job.quality.allocation !== 'widest-intervals' || adapter.family !== 'rating') return null;
  const target = job.quality.targetAcceptedPerPlaylist;
  const loads = (await playlistLoadRows(storage, job.id)).filter((p) => target === undefined || p.included + p.running < target);
  if (loads.length === 0) return null;
  const media = await jobMedia(storage, job.id);
  const attributes = (path: string): MediaAttributes => media.get(path)?.attributes ?? {};
  const anyValue = protocol.answers.ratingValues[0]!;
  const scores = await moments();
  const level = job.quality.stopWhen?.level ?? DEFAULT_STOP_LEVEL;
  const needs = new Map<number, PlaylistNeed>(loads.map((p) => [p.playlist_id, { id: p.playlist_id, load: p.included + p.running, withoutInterval: 0, halfWidths: 0 }]));
  const running = new Map(loads.map((p) => [p.playlist_id, p.running]));
  for (const s of await resultStimuli(storage, job.id)) {
    const need = needs.get(s.playlistId);
    if (!need) continue;
    const stimulus = adapter.vote({ stimulusId: s.id, spec: s.spec, value: anyValue, attributes }).stimulus;
    const m = scores.get(stimulus) ?? { n: 0, sum: 0, squares: 0 };
    const halfWidth = meanHalfWidth(m, level);
    if (halfWidth === null) need.withoutInterval++;
    else need.halfWidths += halfWidth * Math.sqrt(m.n / (m.n + running.get(s.playlistId)!));
  }
  return [...needs.values()].sort(byNeed)[0]!.id;
}
