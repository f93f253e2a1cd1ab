/**
 * What one play of a bubble stimulus shows (pure; unit-tested): media A waiting for the click, media A, then in pair
 * mode the pause and media B, then in free-task mode a closing pause; each media with its blur deviation and window
 * radius (SPEC §2, §9).
 */
import type { BubbleMedia, BubblePlaylistStimulus } from '../../contract/playlist.js';
import type { BubbleWindow, PresentationStep, Rect, StageItem, StepEnd } from '../../web/stage/types.js';
import type { BubbleQuery } from './bubbleQuery.js';
import { bubbleLayout, HINT_BAND_PX, type BubbleDisplay, type BubbleLayout, type Size } from './geometry.js';
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

/**
 * Where a media of the play goes on the canvas, below the hint band: in device pixels at the study's scaling
 * (`display`), or fitted in CSS px ('fit', or no display).
 */
export function layoutOf(plan: PlayPlan, planned: PlannedMedia, canvas: Rect, display?: BubbleDisplay): BubbleLayout {
  return bubbleLayout(canvas, plan.areaSize, planned.nominal, HINT_BAND_PX, display);
}

export type BubbleItem = StageItem & { bubble: BubbleWindow };

/**
 * The stage item of one media: blur bl (else the stimulus's), window radius bd/2 (else the stimulus's radius), both
 * in media pixels, drawn in CSS px of the layout's scale.
 */
export function itemOf(planned: PlannedMedia, layout: BubbleLayout, query: BubbleQuery): BubbleItem {
  const radius = query.bubbleDiameter !== null ? query.bubbleDiameter / 2 : planned.media.radius;
  return {
    media: planned.media.source,
    rect: layout.media,
    ...(layout.pixels ? { pixels: layout.pixels } : {}),
    bubble: { sigma: (query.blur ?? planned.media.blur) * layout.scale, radius: radius * layout.scale },
  };
}

export function mediaEnd(planned: PlannedMedia, displayMs: number): StepEnd {
  return planned.kind === 'video' ? { kind: 'video-end' } : { kind: 'duration', ms: displayMs };
}

/**
 * The steps of one play: A waiting for the participant's click ('ready': a video stays on its first frame), A,
 * [pause, B], [pause in free task]. A zero pause is left out.
 */
export function playSteps(plan: PlayPlan, items: readonly BubbleItem[], options: { displayMs: number; pauseMs: number; freeTask: boolean }): PresentationStep[] {
  const pause = (): PresentationStep[] => (options.pauseMs > 0 ? [{ label: 'pause', items: [], end: { kind: 'duration', ms: options.pauseMs } }] : []);
  const steps: PresentationStep[] = [{ label: 'ready', items: [{ ...items[0]!, paused: true }], end: { kind: 'click' } }];
  plan.media.forEach((planned, i) => {
    if (i > 0) steps.push(...pause());
    steps.push({ label: planned.label, items: [items[i]!], end: mediaEnd(planned, options.displayMs) });
  });
  if (options.freeTask) steps.push(...pause());
  return steps;
}
