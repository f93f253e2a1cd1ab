/**
 * Which part of the canvas a window move changes (pure; unit-tested). Outside the old and the new circle the media
 * is blurred in both frames, so only the union of their bounding boxes needs drawing: a frame then costs in
 * proportion to the window, not to the media. The canvas keeps the rest (preserveDrawingBuffer).
 */
import type { Rect } from '../types';

/** Beyond the radius: the ½ px anti-aliased rim plus device-pixel rounding at fractional device pixel ratios. */
export const DAMAGE_MARGIN_PX = 2;

export interface Circle {
  x: number;
  y: number;
  radius: number;
}

function box(c: Circle): Rect {
  const r = Math.max(c.radius, 0) + DAMAGE_MARGIN_PX;
  return { x: c.x - r, y: c.y - r, width: 2 * r, height: 2 * r };
}

/**
 * The rect (whole CSS px, inside `media`) to redraw when the window goes from `from` to `to`; null when nothing
 * of the media changes (both circles entirely off it). `from` null (no window drawn yet): only `to`'s box.
 */
export function windowDamage(from: Circle | null, to: Circle, media: Rect): Rect | null {
  const boxes = from ? [box(from), box(to)] : [box(to)];
  const left = Math.max(Math.floor(Math.min(...boxes.map((b) => b.x))), media.x);
  const top = Math.max(Math.floor(Math.min(...boxes.map((b) => b.y))), media.y);
  const right = Math.min(Math.ceil(Math.max(...boxes.map((b) => b.x + b.width))), media.x + media.width);
  const bottom = Math.min(Math.ceil(Math.max(...boxes.map((b) => b.y + b.height))), media.y + media.height);
  if (right <= left || bottom <= top) return null;
  return { x: left, y: top, width: right - left, height: bottom - top };
}
