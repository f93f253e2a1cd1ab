/**
 * What one play of a bubble stimulus shows (pure; unit-tested): media A, then in pair mode the pause and media B,
 * then in free-task mode a closing pause; each media with its blur deviation and window radius (SPEC §2, §9).
 */
import type { BubbleMedia, BubblePlaylistStimulus } from '../../contract/playlist.js';
import type { BubbleStep, BubbleView } from '../stage/bubble/types.js';
import type { StepEnd } from '../stage/types.js';
import type { BubbleQuery } from './bubbleQuery.js';
import { bubbleLayout, type BubbleLayout, type Size } from './geometry.js';
import type { MediaSlot } from './sampleStore.js';

/** SPEC §9: image display in single-stimulus mode. */
export const SINGLE_STIMULUS_DISPLAY_MS = 7000;
/** SPEC §9: image display otherwise, without dd. */
export const DEFAULT_DISPLAY_MS = 10000;

export type MediaKind = 'image' | 'video';

export interface PlannedMedia {
  slot: MediaSlot;
  label: 'A' | 'B';
  media: BubbleMedia;
  kind: MediaKind;
  /** Drawn size at scale 1 (w/h query, else the stimulus's size). */
  nominal: Size;
}

export interface PlayPlan {
  media: PlannedMedia[];
  /** The canvas is made for the larger media of the pair. */
  areaSize: Size;
}

/**
 * Image display time: 7000 ms for a single stimulus, else dd, else the job's displayMs extension, else 10000 ms.
 */
export function imageDisplayMs(query: BubbleQuery, jobDisplayMs: number | undefined): number {
  if (query.singleStimulus) return SINGLE_STIMULUS_DISPLAY_MS;
  return query.displayMs ?? jobDisplayMs ?? DEFAULT_DISPLAY_MS;
}

export function playPlan(stimulus: BubblePlaylistStimulus, query: BubbleQuery, kindOf: (source: string) => MediaKind): PlayPlan {
  const sides: Array<[MediaSlot, 'A' | 'B', BubbleMedia | undefined]> = [
    ['mediaA', 'A', stimulus.sourceA],
    ['mediaB', 'B', query.singleStimulus ? undefined : stimulus.sourceB],
  ];
  const media = sides.flatMap(([slot, label, m]) =>
    m ? [{ slot, label, media: m, kind: kindOf(m.source), nominal: { width: query.width ?? m.width, height: query.height ?? m.height } }] : [],
  );
  const areaSize = {
    width: Math.max(...media.map((m) => m.nominal.width)),
    height: Math.max(...media.map((m) => m.nominal.height)),
  };
  return { media, areaSize };
}

export function layoutOf(plan: PlayPlan, planned: PlannedMedia, viewport: Size): BubbleLayout {
  return bubbleLayout(viewport, plan.areaSize, planned.nominal);
}

/** The view of one media: blur bl (else the stimulus's), window radius bd/2 (else the stimulus's radius), scaled. */
export function viewOf(planned: PlannedMedia, layout: BubbleLayout, query: BubbleQuery): BubbleView {
  const radius = query.bubbleDiameter !== null ? query.bubbleDiameter / 2 : planned.media.radius;
  return {
    media: planned.media.source,
    rect: layout.media,
    sigma: (query.blur ?? planned.media.blur) * layout.scale,
    radius: radius * layout.scale,
  };
}

export function mediaEnd(planned: PlannedMedia, displayMs: number): StepEnd {
  return planned.kind === 'video' ? { kind: 'video-end' } : { kind: 'duration', ms: displayMs };
}

/** The steps of one play: A [, pause, B] [, pause in free task]. A zero pause is left out. */
export function playSteps(plan: PlayPlan, views: readonly BubbleView[], options: { displayMs: number; pauseMs: number; freeTask: boolean }): BubbleStep[] {
  const pause = (): BubbleStep[] => (options.pauseMs > 0 ? [{ label: 'pause', view: null, end: { kind: 'duration', ms: options.pauseMs } }] : []);
  const steps: BubbleStep[] = [];
  plan.media.forEach((planned, i) => {
    if (i > 0) steps.push(...pause());
    steps.push({ label: planned.label, view: views[i]!, end: mediaEnd(planned, options.displayMs) });
  });
  if (options.freeTask) steps.push(...pause());
  return steps;
}
