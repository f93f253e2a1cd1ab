import type { JobResponse } from '../../contract/job.js';
import type { PlaylistStimulus } from '../../contract/playlist.js';
import { layoutTripletRow, type MediaBox } from '../../web/stage/layouts.js';
import type { PresentationStep } from '../../web/stage/types.js';
import type { ChoiceLabels, ChoiceParams } from '../common/choice/ChoiceResponse.js';
import { pairParams, REPLAY_DISPLAY_MS, type PairParams } from '../pair/plan.js';
import type { PlanContext } from '../types.js';

/**
 * Triplets (method of triads): three stimuli in a row, sourceA left, sourceB in the middle, sourceC right; the
 * participant tells which side is closer to the middle one. Pure functions only.
 * categoryTest 1: images for the display duration (1000 ms on replay); 3: videos until they end.
 * `reversed` swaps the sides (C left, A right; B stays in the middle). The value is positional like a pair's:
 * left 0, right 1; with `reversed` the left stimulus is sourceC.
 */
export const TRIPLET_CATEGORIES = [1, 3] as const;

export type TripletParams = PairParams & ChoiceParams;

export function tripletLabels(category: number): ChoiceLabels | null {
  if (category === 1) return { first: 'leftImage', last: 'rightImage', replay: 'replayImages' };
  if (category === 3) return { first: 'leftVideos', last: 'rightVideos', replay: 'replayVideos' };
  return null;
}

export function tripletParams(job: JobResponse): TripletParams {
  return { ...pairParams(job), labels: tripletLabels(job.category_id) };
}

/** The three media in the order drawn, left to right. */
export function tripletMedia(stimulus: PlaylistStimulus): [string, string, string] {
  const { sourceA, sourceB, sourceC } = stimulus;
  if (!sourceA || !sourceB || !sourceC) throw new RangeError(`triplet stimulus ${stimulus.stimuliId} needs sourceA, sourceB and sourceC`);
  return stimulus.reversed ? [sourceC, sourceB, sourceA] : [sourceA, sourceB, sourceC];
}

export function planTriplet(stimulus: PlaylistStimulus, ctx: PlanContext<TripletParams>): PresentationStep[] {
  const row = tripletMedia(stimulus).map((media): MediaBox => ({ media, size: ctx.mediaSize(media) }));
  const items = layoutTripletRow(ctx.canvas, row as [MediaBox, MediaBox, MediaBox]);
  switch (ctx.params.category) {
    case 1:
      return [{ label: 'ABC', items, end: { kind: 'duration', ms: ctx.replay ? REPLAY_DISPLAY_MS : ctx.params.displayMs } }];
    case 3:
      return [{ label: 'ABC', items, end: { kind: 'video-end' } }];
    default:
      throw new RangeError(`a triplet cannot show categoryTest ${ctx.params.category}`);
  }
}
