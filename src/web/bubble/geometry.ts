/**
 * Where the bubble stimulus goes and how pointer positions map onto it (pure; unit-tested).
 *
 * The media is drawn at its nominal size (the w/h query, else the stimulus's width/height) in CSS px, centred in a
 * media area 1.25 times as wide and as high (SPEC §9), itself centred in the window. The canvas is exactly that
 * area. When the window is too small for the area, everything is scaled down by one factor (blur deviation and
 * window radius too, so the stimulus looks the same, only smaller).
 *
 * Stimulus coordinates (the stored mouse samples): pixels of the stimulus as declared in the study
 * (BubbleMedia.width x height), origin at its top-left: x = (clientX - media left) * stimulus width / drawn width.
 * At the nominal size and scale 1 that is simply CSS px from the media's top-left corner. Positions outside the
 * media are kept (negative or beyond the size).
 */
import type { Rect } from '../stage/types.js';

export const AREA_FACTOR = 1.25;

export interface Size {
  width: number;
  height: number;
}

export interface BubbleLayout {
  /** Display scale (1, or less when the window is too small). */
  scale: number;
  /** The media area = the canvas, in client (window) CSS px. */
  area: Rect;
  /** The media, in canvas CSS px. */
  media: Rect;
}

/**
 * @param areaSize nominal size the area is made for (the larger of a pair's media, so A and B share one canvas)
 * @param mediaSize nominal size of the media drawn now
 */
export function bubbleLayout(viewport: Size, areaSize: Size, mediaSize: Size = areaSize): BubbleLayout {
  const scale = Math.min(1, viewport.width / (AREA_FACTOR * areaSize.width), viewport.height / (AREA_FACTOR * areaSize.height));
  const areaWidth = Math.max(1, Math.round(AREA_FACTOR * areaSize.width * scale));
  const areaHeight = Math.max(1, Math.round(AREA_FACTOR * areaSize.height * scale));
  const mediaWidth = Math.max(1, Math.round(mediaSize.width * scale));
  const mediaHeight = Math.max(1, Math.round(mediaSize.height * scale));
  return {
    scale,
    area: { x: Math.floor((viewport.width - areaWidth) / 2), y: Math.floor((viewport.height - areaHeight) / 2), width: areaWidth, height: areaHeight },
    media: { x: Math.round((areaWidth - mediaWidth) / 2), y: Math.round((areaHeight - mediaHeight) / 2), width: mediaWidth, height: mediaHeight },
  };
}

/** Client (window) CSS px -> canvas CSS px. */
export function toCanvas(clientX: number, clientY: number, layout: BubbleLayout): { x: number; y: number } {
  return { x: clientX - layout.area.x, y: clientY - layout.area.y };
}

/** Client (window) CSS px -> stimulus pixels (see the file comment). */
export function toStimulus(clientX: number, clientY: number, layout: BubbleLayout, stimulus: Size): { x: number; y: number } {
  const left = layout.area.x + layout.media.x;
  const top = layout.area.y + layout.media.y;
  return {
    x: ((clientX - left) * stimulus.width) / layout.media.width,
    y: ((clientY - top) * stimulus.height) / layout.media.height,
  };
}

/** Centre of the window (where the centering mark is), client CSS px. */
export function screenCentre(viewport: Size): { x: number; y: number } {
  return { x: viewport.width / 2, y: viewport.height / 2 };
}
