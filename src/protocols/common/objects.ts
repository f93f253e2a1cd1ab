import { resolveObjectOptions, type ObjectOptions, type ResolvedObjectOptions } from '../../contract/objects.js';
import { mediaType } from '../../contract/media-types.js';
import type { PlaylistStimulus } from '../../contract/playlist.js';
import type { Canvas } from '../../web/stage/layouts.js';
import type { StageItem, StepEnd } from '../../web/stage/types.js';

/**
 * 3D objects in the staged protocols (README "3D objects"): wherever a protocol shows an image it shows a 3D object
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
