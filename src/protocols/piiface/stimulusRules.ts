import type { PiifacePlaylistStimulus } from '../../contract/playlist.js';
import type { PiifaceStimulusSpec } from '../../contract/stimulus.js';
import { checkSchema } from '../common/checks.js';
import { MEDIA_FILE_SCHEMA } from '../common/genericStimulus.js';
import type { CheckRules, StimulusRules } from '../types.js';
import { EMOTION_KEYS } from './answers.js';

/** Gold and trap answers are the expected emotion index (0 Anger … 6 Surprise); the confidence does not count. */
export const piifaceChecks: CheckRules<PiifaceStimulusSpec> = {
  answer: { type: 'integer', minimum: 0, maximum: 6 },
  passed: (check, answer) => piifaceChecks.answerOf(answer) === check.answer,
  answerOf: ({ value }) => Math.floor(value / 10) - 1,
  labelOf: (emotion) => EMOTION_KEYS[Number(emotion)],
};

/** A piiface stimulus (SPEC §3): its type string (a training type's fourth '/' segment is the expected emotion) and its image. */
export const piifaceStimulus: StimulusRules<PiifaceStimulusSpec> = {
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['type', 'source'],
    properties: { type: { type: 'string', maxLength: 500 }, source: MEDIA_FILE_SCHEMA, check: checkSchema(piifaceChecks.answer) },
  },
  media: (spec) => [['source', spec.source]],
  view: (id, spec, mediaName): PiifacePlaylistStimulus => ({ stimuli_id: id, type: spec.type, source: mediaName(spec.source) }),
  columns: (spec) => ({
    stimulus_type: spec.type,
    source: spec.source,
    source_a: null,
    source_b: null,
    source_c: null,
    source_d: null,
    reversed: null,
    reference_value: null,
  }),
};

/** Emotions of the piiface scale (SPEC §2 order); an index is a position in this list. */
export const EMOTION_COUNT = 7;

/**
 * SPEC §3: the fourth '/' segment of a stimulus's type is the expected emotion index ('piiface/train/ada/3' -> 3,
 * Happiness, 0-based). null when the type carries no valid index.
 */
export function expectedEmotionOfType(type: string): number | null {
  const segment = type.split('/')[3]?.trim();
  if (!segment || !/^\d+$/.test(segment)) return null;
  const index = Number(segment);
  return index < EMOTION_COUNT ? index : null;
}
