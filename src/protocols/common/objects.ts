import { resolveObjectOptions, type ObjectOptions, type ResolvedObjectOptions } from '../../contract/objects.js';
import { mediaType } from '../../contract/media-types.js';
import type { PlaylistStimulus } from '../../contract/playlist.js';
import type { Canvas, LayoutOptions } from '../../web/stage/layouts.js';
import type { StageItem, StepEnd } from '../../web/stage/types.js';

/**
 * 3D objects in the staged protocols (docs/3d-objects.md): wherever a protocol shows an image it shows a 3D object
 * (a `model` media, known by its extension), drawn in the same rectangle, with the job's `objects` options under the
 * stimulus's own `object` keys. Pure.
 */

export function isModel(media: string): boolean {
  return mediaType(media, null)?.kind === 'model';
}

/** True when the stimulus shows 3D objects (its first source is one). */
export function showsObjects(stimulus: PlaylistStimulus): boolean {
  const first = stimulus.source ?? stimulus.sourceA;
  return first !== undefined && isModel(first);
}

export function objectOptions(stimulus: PlaylistStimulus, jobObjects: ObjectOptions | undefined): ResolvedObjectOptions {
  return resolveObjectOptions(jobObjects, stimulus.object);
}

/**
 * The canvas a 3D object is laid out on: fitted ('fit'), since three.js renders it at device pixels at any size
 * (nothing is resampled), so pixel-exact scaling would only refuse small windows for nothing.
 */
export function objectCanvas(canvas: Canvas): Canvas {
  return { ...canvas, scaling: 'fit' };
}

/**
 * The room an answer dialog needs beside or below 3D objects that stay up while it is open (inspect mode), CSS px,
 * its padding included. The page puts the dialog in the free band the layout leaves (`answerSlot`) and lets it
 * scroll there rather than spill over an object, so these only decide how much room is kept.
 */
export interface DialogRoom {
  width: number;
  height: number;
}

/** A column of level buttons (measured in Chromium: ACR 304 × 314 px, impairment 320 × 339, acceptability 305 × 239). */
export const LEVELS_DIALOG: DialogRoom = { width: 320, height: 340 };
/** Two options and Replay (one row: 526 × 107 px; in 320 px, 220 high), then the choice and Submit / Modify (144 high). */
export const CHOICE_DIALOG: DialogRoom = { width: 320, height: 150 };

/** Space between an object and the dialog beside it, and between the dialog and the window's edge. */
export const DIALOG_GAP_PX = 16;

/**
 * Lays out 3D objects with `lay` ('fit'). Under inspection they stay up, turnable, while the answer dialog is open,
 * so a band is kept free for it (issue 35): on the right (the dialog beside them) or at the bottom (below them),
 * whichever leaves the objects larger. A turntable has ended (the stage is blank) before its dialog opens: no band.
 */
export function layoutObjects<T extends StageItem[]>(
  canvas: Canvas,
  options: ResolvedObjectOptions,
  dialog: DialogRoom,
  lay: (canvas: Canvas, layout?: LayoutOptions) => T,
): T {
  const fitted = objectCanvas(canvas);
  if (options.mode !== 'inspect') return lay(fitted);
  const beside = lay(fitted, { keepClear: { right: dialog.width + 2 * DIALOG_GAP_PX } });
  const below = lay(fitted, { keepClear: { bottom: dialog.height + 2 * DIALOG_GAP_PX } });
  const width = (items: T) => items[0]?.rect.width ?? 0;
  return width(below) > width(beside) ? below : beside;
}

/** The item with its presentation options when its media is a 3D object; other items unchanged. */
export function withObject(item: StageItem, options: ResolvedObjectOptions): StageItem {
  return isModel(item.media) ? { ...item, object: options } : item;
}

/**
 * How a step showing 3D objects ends: a turntable after its last pose's refreshes (played like a clip), an
 * inspection when the participant answers (the answer view opens after minInspectMs).
 */
export function objectEnd(options: ResolvedObjectOptions): StepEnd {
  return options.mode === 'turntable' ? { kind: 'video-end' } : { kind: 'hold' };
}

/**
 * A step that must end before another one follows (the first object of a one-after-another pair): a turntable
 * runs its course; an inspection lasts minInspectMs, or the image display time when no minimum is set.
 */
export function objectEndBeforeNext(options: ResolvedObjectOptions, displayMs: number): StepEnd {
  return options.mode === 'turntable' ? { kind: 'video-end' } : { kind: 'duration', ms: options.minInspectMs || displayMs };
}
