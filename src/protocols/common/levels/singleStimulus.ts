import type { PlaylistStimulus } from '../../../contract/playlist.js';
import { layoutSingle } from '../../../web/stage/layouts.js';
import type { PresentationStep } from '../../../web/stage/types.js';
import type { PairParams } from '../../pair/plan.js';
import type { PlanContext } from '../../types.js';
import { isModel, layoutObjects, LEVELS_DIALOG, objectEnd, objectOptions, withObject } from '../objects.js';

/**
 * Single-stimulus presentation (ACR, acceptability; SPEC §4 "Single-stimulus rating"): one media centred.
 * categoryTest 1 and 2 are image pages: the image ends on a click on it or when its display time ends.
 * categoryTest 5 is a single video: it plays to its end, then the levels open. A 3D object (docs/3d-objects.md)
 * turns once (turntable) or stays up while the levels are answered (inspect). Pure.
 */
export const SINGLE_CATEGORIES = [1, 2, 5] as const;

/** Same job parameters as the pair test: the layout and the image display time. */
export type SingleParams = PairParams;

/** The stimulus's one media: `source`, or `sourceA` for a study written with pair fields. */
export function singleSource(stimulus: PlaylistStimulus): string {
  const media = stimulus.source ?? stimulus.sourceA;
  if (!media) throw new RangeError(`stimulus ${stimulus.stimuliId} has no source`);
  return media;
}

export function singleMedia(stimulus: PlaylistStimulus): string[] {
  return [singleSource(stimulus)];
}

export function planSingle(stimulus: PlaylistStimulus, ctx: PlanContext<SingleParams>): PresentationStep[] {
  const media = singleSource(stimulus);
  const box = { media, size: ctx.mediaSize(media) };
  if (isModel(media)) {
    // A 3D object on any single-stimulus page: its turntable, or the inspection until the answer (the levels beside it).
    const options = objectOptions(stimulus, ctx.params.objects);
    const [item] = layoutObjects(ctx.canvas, options, LEVELS_DIALOG, (canvas, layout) => [layoutSingle(canvas, box, layout)]);
    return [{ label: 'S', items: [withObject(item!, options)], end: objectEnd(options) }];
  }
  const item = layoutSingle(ctx.canvas, box);
  switch (ctx.params.category) {
    case 1:
    case 2:
      return [{ label: 'S', items: [item], end: { kind: 'click', maxMs: ctx.params.displayMs } }];
    case 5:
      return [{ label: 'S', items: [item], end: { kind: 'video-end' } }];
    default:
      throw new RangeError(`a single-stimulus rating cannot show categoryTest ${ctx.params.category}`);
  }
}
