import type { JobResponse } from '../../contract/job.js';
import type { PlaylistStimulus } from '../../contract/playlist.js';
import { layoutOneAfterAnother, layoutQuadruplet, layoutSideBySide, type MediaBox } from '../../web/stage/layouts.js';
import type { PresentationStep, StageItem } from '../../web/stage/types.js';
import type { ObjectOptions } from '../../contract/objects.js';
import type { ChoiceLabels, PairAnswer } from '../common/choice/ChoiceResponse.js';
import { CHOICE_DIALOG, layoutObjects, objectEnd, objectEndBeforeNext, objectOptions, showsObjects, withObject, type DialogRoom } from '../common/objects.js';
import type { PlanContext } from '../types.js';

/** Pair comparison (SPEC §4 "Pair test, per stimulus", §9 timings). Pure functions only. */

/** SPEC §9: image display default 1000 ms; 1000 ms blank between A and B in one-by-one mode. */
export const DEFAULT_DISPLAY_MS = 1000;
export const GAP_MS = 1000;
/** SPEC §9: on replay the image is shown 1000 ms (ending the one-by-one sequence at 3000 ms), whatever the job says. */
export const REPLAY_DISPLAY_MS = 1000;

export const PAIR_CATEGORIES = [1, 2, 3, 4] as const;

export interface PairParams {
  /** categoryTest: 1 images side by side, 2 images one after another, 3 videos side by side, 4 videos one after another. */
  category: number;
  displayMs: number;
  /** The job's 3D presentation options (docs/3d-objects.md); a stimulus's `object` overrides them. */
  objects?: ObjectOptions;
}

export function pairParams(job: JobResponse): PairParams {
  return { category: job.category_id, displayMs: job.displayMs ?? DEFAULT_DISPLAY_MS, ...(job.objects ? { objects: job.objects } : {}) };
}

/** Four videos (sourceC and sourceD present) on a side-by-side video page: top pair (A, B) against bottom pair (C, D). */
export function isStacked(stimulus: PlaylistStimulus, params: PairParams): boolean {
  return params.category === 3 && !!stimulus.sourceC && !!stimulus.sourceD;
}

/**
 * The two options in the order they are shown (first/left/top, then last/right/bottom). `reversed` swaps them;
 * the stored value stays positional (SPEC §5: first/left = 0) and the timing records name the media shown.
 */
export function shownOptions(stimulus: PlaylistStimulus, params: PairParams): [string[], string[]] {
  const a = [stimulus.sourceA ?? ''];
  const b = [stimulus.sourceB ?? ''];
  const options: [string[], string[]] = isStacked(stimulus, params)
    ? [[stimulus.sourceA!, stimulus.sourceB!], [stimulus.sourceC!, stimulus.sourceD!]]
    : [a, b];
  return stimulus.reversed ? [options[1], options[0]] : options;
}

export function pairMedia(stimulus: PlaylistStimulus, params: PairParams): string[] {
  const [first, second] = shownOptions(stimulus, params);
  return [...first, ...second].filter((m) => m !== '');
}

/** `dialog`: the room of the answer dialog kept beside objects under inspection (DSIS's is its levels). */
export function planPair(stimulus: PlaylistStimulus, ctx: PlanContext<PairParams>, dialog: DialogRoom = CHOICE_DIALOG): PresentationStep[] {
  const { params } = ctx;
  const box = (media: string): MediaBox => ({ media, size: ctx.mediaSize(media) });
  const [first, second] = shownOptions(stimulus, params);
  const displayMs = ctx.replay ? REPLAY_DISPLAY_MS : params.displayMs;
  const image = { kind: 'duration', ms: displayMs } as const;
  const video = { kind: 'video-end' } as const;
  const gap: PresentationStep = { label: 'gap', items: [], end: { kind: 'duration', ms: GAP_MS } };
  if (showsObjects(stimulus) && (params.category === 1 || params.category === 2)) return planObjectPair(stimulus, ctx, first[0]!, second[0]!, gap, dialog);
  const oneAfterAnother = (end: PresentationStep['end']): PresentationStep[] => {
    const [a, b] = layoutOneAfterAnother(ctx.canvas, [box(first[0]!), box(second[0]!)]);
    return [step('A', [a], end), gap, step('B', [b], end)];
  };
  switch (params.category) {
    case 1:
      return [step('AB', layoutSideBySide(ctx.canvas, [box(first[0]!), box(second[0]!)]), image)];
    case 2:
      return oneAfterAnother(image);
    case 3:
      if (isStacked(stimulus, params)) {
        const quad = [...first, ...second].map(box) as [MediaBox, MediaBox, MediaBox, MediaBox];
        return [step('ABCD', layoutQuadruplet(ctx.canvas, quad), video)];
      }
      return [step('AB', layoutSideBySide(ctx.canvas, [box(first[0]!), box(second[0]!)]), video)];
    case 4:
      return oneAfterAnother(video);
    default:
      throw new RangeError(`pair comparison cannot show categoryTest ${params.category}`);
  }
}

/**
 * A pair of 3D objects on an image page: side by side, both drawn from one camera (one turntable, or one inspection
 * until the answer); one after another, each from its own start pose, the first for its turn or minimum inspection.
 */
function planObjectPair(
  stimulus: PlaylistStimulus,
  ctx: PlanContext<PairParams>,
  first: string,
  second: string,
  gap: PresentationStep,
  dialog: DialogRoom,
): PresentationStep[] {
  const options = objectOptions(stimulus, ctx.params.objects);
  const pair: [MediaBox, MediaBox] = [{ media: first, size: ctx.mediaSize(first) }, { media: second, size: ctx.mediaSize(second) }];
  if (ctx.params.category === 1) {
    const items = layoutObjects(ctx.canvas, options, dialog, (canvas, layout) => layoutSideBySide(canvas, pair, layout));
    return [step('AB', items.map((item) => withObject(item, options)), objectEnd(options))];
  }
  // Both at one size and place, so the second (inspected while the dialog is up) keeps the first's.
  const [a, b] = layoutObjects(ctx.canvas, options, dialog, (canvas, layout) => layoutOneAfterAnother(canvas, pair, layout)).map((item) =>
    withObject(item, options),
  );
  return [step('A', [a!], objectEndBeforeNext(options, ctx.params.displayMs)), gap, step('B', [b!], objectEnd(options))];
}

function step(label: string, items: StageItem[], end: PresentationStep['end']): PresentationStep {
  return { label, items, end };
}

/** SPEC §5: 'Left Video' or the first option gives 0, anything else gives 1. */
export function pairValue(answer: PairAnswer): number {
  return answer === 'optionimageA' ? 0 : 1;
}

/** Button labels of the vote dialog (SPEC §2 "Rating dialogs"). */
export function pairLabels(stimulus: PlaylistStimulus, params: PairParams): ChoiceLabels {
  if (params.category === 3) {
    return isStacked(stimulus, params)
      ? { first: 'topPairOfVideos', last: 'bottomPairOfVideos', replay: 'replayVideos' }
      : { first: 'leftVideos', last: 'rightVideos', replay: 'replayVideos' };
  }
  if (params.category === 4) return { first: 'firstVideo', last: 'lastVideo', replay: 'replayVideos' };
  // Objects side by side are both up at once: left and right, as the side-by-side videos (SPEC §2).
  if (showsObjects(stimulus)) {
    return params.category === 1
      ? { first: 'leftObject', last: 'rightObject', replay: 'replayObjects' }
      : { first: 'firstObject', last: 'lastObject', replay: 'replayObjects' };
  }
  return { first: 'firstImage', last: 'lastImage', replay: 'replayImages' };
}
