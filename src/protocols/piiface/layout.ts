import { fitRect, type Size } from '../../web/stage/layouts.js';
import type { Rect } from '../../web/stage/types.js';

/**
 * Where the face goes: the stage fills the window and the answer panel floats over its right side, so the face
 * is fitted (never upscaled) and centred in the part of the canvas left of the panel. Pure.
 */

/** Width of the answer panel, CSS px (the panel's style uses this same number). */
export const PANEL_WIDTH_PX = 360;
const MARGIN_PX = 16;

export function faceRect(canvas: Size, media: Size): Rect {
  const box: Rect = {
    x: MARGIN_PX,
    y: MARGIN_PX,
    width: Math.max(0, canvas.width - PANEL_WIDTH_PX - 2 * MARGIN_PX),
    height: Math.max(0, canvas.height - 2 * MARGIN_PX),
  };
  return fitRect(media, box);
}
