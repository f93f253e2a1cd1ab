import { fitRect, layoutSingle, type Canvas, type Size } from '../../web/stage/layouts.js';
import type { Rect, StageItem } from '../../web/stage/types.js';

/**
 * Where the face goes: the stage fills the window and the answer panel floats over its right side, so the face is
 * centred in the part of the canvas left of the panel: at the study's scaling in device pixels ('integer', the
 * default, or 'native': never shrunk, docs/pixels.md), or fitted in CSS px ('fit'). Pure.
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

/** The face's stage item at the canvas's scaling: exact (with its pixels record, `fits` false when it does not) or fitted. */
export function faceItem(canvas: Canvas, media: string, size: Size): StageItem {
  if (canvas.scaling === 'integer' || canvas.scaling === 'native') {
    return layoutSingle({ ...canvas, width: Math.max(0, canvas.width - PANEL_WIDTH_PX) }, { media, size }, { margin: MARGIN_PX });
  }
  return { media, rect: faceRect(canvas, size) };
}

/** The device pixels the face may use: the canvas less the panel (what a window too small is measured against). */
export function faceRoom(device: { width: number; height: number; ratio: number }): { width: number; height: number; ratio: number } {
  return { ...device, width: Math.max(0, device.width - Math.round(PANEL_WIDTH_PX * device.ratio)) };
}
