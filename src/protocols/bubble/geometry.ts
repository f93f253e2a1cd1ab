/**
 * Where the bubble stimulus goes and how pointer positions map onto it (pure; unit-tested).
 *
 * The media is drawn at its nominal size (the w/h query, else the stimulus's width/height) in CSS px, centred in a
 * media area 1.25 times as wide and as high (SPEC §9), itself centred on the window (the canvas is taken to reach the
 * window's bottom-right), so the centering mark at the media's centre is at 'the center of the screen' as the
 * participant is told (SPEC §2). Where the area cannot be centred without covering the question band or the hint
 * above it (the canvas sits below the band), it goes as close to the centre as it can. When the canvas is too small for the area, everything is scaled
 * down by one factor (blur deviation and window radius too, so the stimulus looks the same, only smaller); the
 * factor is recorded with the presentation's timing.
 *
 * Stimulus coordinates (the stored mouse samples): pixels of the stimulus as declared in the study
 * (BubbleMedia.width x height), origin at its top-left: x = (clientX - media left) * stimulus width / drawn width.
 * At the nominal size and scale 1 that is simply CSS px from the media's top-left corner. Positions outside the
 * media are kept (negative or beyond the size).
 */
import type { Rect } from '../../web/stage/types.js';

export const AREA_FACTOR = 1.25;

export interface Size {
  width: number;
  height: number;
}

export interface BubbleLayout {
  /** Display scale (1, or less when the canvas is too small). */
  scale: number;
  /** The media area, in canvas CSS px. */
  area: Rect;
  /** The media, in canvas CSS px. */
  media: Rect;
  /** Where the canvas is in the window (client CSS px). */
  canvas: Rect;
}

/** Room kept at the top of the canvas for the 'Click to start.' hint, CSS px: the area never covers it. */
export const HINT_BAND_PX = 40;

/**
 * @param canvas the stage canvas in the window (client CSS px)
 * @param areaSize nominal size the area is made for (the larger of a pair's media, so A and B share one place)
 * @param mediaSize nominal size of the media drawn now
 * @param reserveTop room kept free at the top of the canvas (the hint), CSS px
 */
export function bubbleLayout(canvas: Rect, areaSize: Size, mediaSize: Size = areaSize, reserveTop = 0): BubbleLayout {
  const room = { width: canvas.width, height: Math.max(1, canvas.height - reserveTop) };
  const scale = Math.min(1, room.width / (AREA_FACTOR * areaSize.width), room.height / (AREA_FACTOR * areaSize.height));
  const areaWidth = Math.max(1, Math.round(AREA_FACTOR * areaSize.width * scale));
  const areaHeight = Math.max(1, Math.round(AREA_FACTOR * areaSize.height * scale));
  const mediaWidth = Math.max(1, Math.round(mediaSize.width * scale));
  const mediaHeight = Math.max(1, Math.round(mediaSize.height * scale));
  // The window's centre in canvas px; the area is clamped to the room below the reserved top.
  const windowCentre = { x: (canvas.x + canvas.width) / 2 - canvas.x, y: (canvas.y + canvas.height) / 2 - canvas.y };
  const clamp = (value: number, low: number, high: number) => Math.min(Math.max(value, low), Math.max(low, high));
  const area = {
    x: clamp(Math.floor(windowCentre.x - areaWidth / 2), 0, canvas.width - areaWidth),
    y: clamp(Math.floor(windowCentre.y - areaHeight / 2), reserveTop, canvas.height - areaHeight),
    width: areaWidth,
    height: areaHeight,
  };
  return {
    scale,
    area,
    media: { x: area.x + Math.round((areaWidth - mediaWidth) / 2), y: area.y + Math.round((areaHeight - mediaHeight) / 2), width: mediaWidth, height: mediaHeight },
    canvas,
  };
}

/** Client (window) CSS px -> stimulus pixels (see the file comment). */
export function toStimulus(clientX: number, clientY: number, layout: BubbleLayout, stimulus: Size): { x: number; y: number } {
  const left = layout.canvas.x + layout.media.x;
  const top = layout.canvas.y + layout.media.y;
  return {
    x: ((clientX - left) * stimulus.width) / layout.media.width,
    y: ((clientY - top) * stimulus.height) / layout.media.height,
  };
}

/** Centre of the media, where the centering mark is (client CSS px). */
export function mediaCentre(layout: BubbleLayout): { x: number; y: number } {
  return { x: layout.canvas.x + layout.media.x + layout.media.width / 2, y: layout.canvas.y + layout.media.y + layout.media.height / 2 };
}
