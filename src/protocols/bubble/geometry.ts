/**
 * Where the bubble stimulus goes and how pointer positions map onto it (pure; unit-tested).
 *
 * With the study's `scaling` 'integer' (the default) or 'native' (docs/pixels.md), the layout is in device pixels:
 * each media pixel of the nominal size becomes k×k device pixels (k = pixelsPerMediaPixel), at a whole device pixel,
 * centred on the window as below, and never shrunk: when it does not fit below the hint band, `fits` is false and the
 * page waits for a larger window. The blur deviation and the window radius are in media pixels (× k device pixels).
 *
 * With 'fit' (the behaviour before), the media is drawn at its nominal size (the w/h query, else the stimulus's width/height) in CSS px, centred in a
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
import type { Scaling } from '../../contract/job-options.js';
import { pixelsPerMediaPixel } from '../../web/stage/layouts.js';
import type { ItemPixels, Rect } from '../../web/stage/types.js';

export const AREA_FACTOR = 1.25;

export interface Size {
  width: number;
  height: number;
}

export interface BubbleLayout {
  /** CSS px per nominal media pixel: 'fit' 1, or less when the canvas is too small; exact k / ratio. */
  scale: number;
  /** The media area, in canvas CSS px. */
  area: Rect;
  /** The media, in canvas CSS px. */
  media: Rect;
  /** Where the canvas is in the window (client CSS px). */
  canvas: Rect;
  /** Exact layouts: how the media pixels land on device pixels (the record's scale, filter, rectangle, fit). */
  pixels?: ItemPixels;
  /** Exact layouts: the canvas the media needs, device px (the media below the hint band). */
  needs?: Size;
}

/** How the study maps media pixels to the display: its `scaling`, the device pixel ratio, the file's own size. */
export interface BubbleDisplay {
  scaling: Scaling;
  ratio: number;
  /** The media file's pixels (the stage's mediaSize); absent: taken to be the nominal size. */
  natural?: Size;
}

/** Room kept at the top of the canvas for the 'Click to start.' hint, CSS px: the area never covers it. */
export const HINT_BAND_PX = 40;

/**
 * @param canvas the stage canvas in the window (client CSS px)
 * @param areaSize nominal size the area is made for (the larger of a pair's media, so A and B share one place)
 * @param mediaSize nominal size of the media drawn now
 * @param reserveTop room kept free at the top of the canvas (the hint), CSS px
 */
export function bubbleLayout(canvas: Rect, areaSize: Size, mediaSize: Size = areaSize, reserveTop = 0, display?: BubbleDisplay): BubbleLayout {
  if (display && display.scaling !== 'fit') return exactBubbleLayout(canvas, areaSize, mediaSize, reserveTop, { ...display, scaling: display.scaling });
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

/**
 * The exact layout in device pixels: the media at k device pixels per nominal pixel, centred on the window and
 * pushed inside the canvas below the hint band (the 1.25× area around it, SPEC §9, clamped the same way, is where
 * the pointer may roam). Filtered 'nearest' when the nominal size is the file's own, else 'linear' (the study's w/h
 * asked for another size) with the scale it then has.
 */
function exactBubbleLayout(canvas: Rect, areaSize: Size, mediaSize: Size, reserveTop: number, display: BubbleDisplay & { scaling: Exclude<Scaling, 'fit'> }): BubbleLayout {
  const { ratio, scaling } = display;
  const k = pixelsPerMediaPixel(scaling, ratio);
  const device = (css: number) => Math.round(css * ratio);
  const room = { width: device(canvas.width), height: device(canvas.height) };
  const top = device(reserveTop);
  const centre = { x: ((canvas.x + canvas.width) / 2 - canvas.x) * ratio, y: ((canvas.y + canvas.height) / 2 - canvas.y) * ratio };
  const place = (size: Size) => ({
    x: Math.max(0, Math.min(Math.floor(centre.x - size.width / 2), room.width - size.width)),
    y: Math.max(top, Math.min(Math.floor(centre.y - size.height / 2), room.height - size.height)),
    ...size,
  });
  const media = place({ width: k * mediaSize.width, height: k * mediaSize.height });
  const area = place({ width: Math.round(AREA_FACTOR * k * areaSize.width), height: Math.round(AREA_FACTOR * k * areaSize.height) });
  const natural = display.natural ?? mediaSize;
  const same = natural.width === mediaSize.width && natural.height === mediaSize.height;
  const fits = media.width <= room.width && media.height <= room.height - top;
  const css = (r: Rect): Rect => ({ x: r.x / ratio, y: r.y / ratio, width: r.width / ratio, height: r.height / ratio });
  return {
    scale: k / ratio,
    area: css(area),
    media: css(media),
    canvas,
    pixels: { scaling, scale: same ? k : (k * mediaSize.width) / natural.width, filter: same ? 'nearest' : 'linear', device: media, fits },
    needs: { width: media.width, height: media.height + top },
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
