import type { JobResponse } from '../../contract/job.js';
import type { PlaylistStimulus } from '../../contract/playlist.js';
import { layoutQuadruplet, type MediaBox } from '../../web/stage/layouts.js';
import type { PresentationStep } from '../../web/stage/types.js';
import type { ChoiceLabels, ChoiceParams } from '../common/choice/ChoiceResponse.js';
import { pairParams, REPLAY_DISPLAY_MS, type PairParams } from '../pair/plan.js';
import type { PlanContext } from '../types.js';

/**
 * MLDS with quadruplets (Maloney & Yang 2003): two pairs, (sourceA, sourceB) on top and (sourceC, sourceD) below,
 * all four at once; the participant picks the pair whose two stimuli differ more. Pure functions only.
 * categoryTest 1: images, shown for the display duration (1000 ms on replay); 3: videos, until they end.
 * `reversed` puts (C, D) on top. The value is positional like a pair's: top pair 0, bottom pair 1; with
 * `reversed` the top pair is (C, D), so analyses read reversed with the value (as for pairs).
 */
export const MLDS_CATEGORIES = [1, 3] as const;

export type MldsParams = PairParams & ChoiceParams;

export function mldsLabels(category: number): ChoiceLabels | null {
  if (category === 1) return { first: 'topPairOfImages', last: 'bottomPairOfImages', replay: 'replayImages' };
  if (category === 3) return { first: 'topPairOfVideos', last: 'bottomPairOfVideos', replay: 'replayVideos' };
  return null;
}

export function mldsParams(job: JobResponse): MldsParams {
  return { ...pairParams(job), labels: mldsLabels(job.category_id) };
}

/** The four media in the order drawn: top-left, top-right, bottom-left, bottom-right. */
export function mldsMedia(stimulus: PlaylistStimulus): [string, string, string, string] {
  const { sourceA, sourceB, sourceC, sourceD } = stimulus;
  if (!sourceA || !sourceB || !sourceC || !sourceD) {
    throw new RangeError(`MLDS stimulus ${stimulus.stimuliId} needs sourceA, sourceB, sourceC and sourceD`);
  }
  return stimulus.reversed ? [sourceC, sourceD, sourceA, sourceB] : [sourceA, sourceB, sourceC, sourceD];
}

export function planMlds(stimulus: PlaylistStimulus, ctx: PlanContext<MldsParams>): PresentationStep[] {
  const quad = mldsMedia(stimulus).map((media): MediaBox => ({ media, size: ctx.mediaSize(media) }));
  const items = layoutQuadruplet(ctx.canvas, quad as [MediaBox, MediaBox, MediaBox, MediaBox]);
  switch (ctx.params.category) {
    case 1:
      return [{ label: 'ABCD', items, end: { kind: 'duration', ms: ctx.replay ? REPLAY_DISPLAY_MS : ctx.params.displayMs } }];
    case 3:
      return [{ label: 'ABCD', items, end: { kind: 'video-end' } }];
    default:
      throw new RangeError(`MLDS cannot show categoryTest ${ctx.params.category}`);
  }
}
