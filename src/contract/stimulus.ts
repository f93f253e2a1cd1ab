/**
 * Study-file stimulus shapes (SPEC §3) as plain TypeScript, shared by the web and the server. Their JSON Schemas
 * belong to the protocols (src/protocols/*): each protocol declares the stimulus it takes.
 */

/** A media file path relative to the study's media folder: no directory above it, no absolute path. */
export const MEDIA_FILE_PATTERN = '^(?!.*\\.\\.)[A-Za-z0-9_][A-Za-z0-9._/-]{0,200}$';

/** The stimulus of the generic test page; the server assigns stimuliId. */
import type { ObjectOptions } from './objects.js';
import type { StimulusCheck } from './quality.js';

export interface GenericStimulusSpec {
  sourceA?: string;
  sourceB?: string;
  sourceC?: string;
  sourceD?: string;
  source?: string;
  reversed?: boolean;
  /** Training reference score. */
  value?: number;
  /** A gold, trapping or attention-check stimulus (docs/quality.md). */
  check?: StimulusCheck;
  /** How its 3D objects are presented, over the job's `objects` (docs/3d-objects.md). */
  object?: ObjectOptions;
}

export interface BubbleMediaSpec {
  source: string;
  height: number;
  width: number;
  blur: number;
  radius: number;
  golden?: boolean;
}

export interface BubbleStimulusSpec {
  sourceA: BubbleMediaSpec;
  sourceB?: BubbleMediaSpec;
  check?: StimulusCheck;
}

export interface PiifaceStimulusSpec {
  type: string;
  source: string;
  check?: StimulusCheck;
}
