import type { BubbleMedia, BubblePlaylistStimulus } from '../../contract/playlist.js';
import type { BubbleMediaSpec, BubbleStimulusSpec } from '../../contract/stimulus.js';
import { checkSchema } from '../common/checks.js';
import { MEDIA_FILE_SCHEMA } from '../common/genericStimulus.js';
import type { AnalysedScreening, CheckRules, JsonSchema, StimulusRules } from '../types.js';

/**
 * A bubble stimulus (SPEC §3): media A and optionally B, each with its declared size, blur deviation, window
 * radius and golden flag. Served with stimuli_id spellings (SPEC §3).
 */
const BUBBLE_MEDIA_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['source', 'height', 'width', 'blur', 'radius'],
  properties: {
    source: MEDIA_FILE_SCHEMA,
    height: { type: 'integer', minimum: 1, maximum: 8192 },
    width: { type: 'integer', minimum: 1, maximum: 8192 },
    blur: { type: 'number', minimum: 0, maximum: 200 },
    radius: { type: 'number', minimum: 1, maximum: 4096 },
    golden: { type: 'boolean' },
  },
};

const SIDES = ['sourceA', 'sourceB'] as const;

/** Gold and trap answers are the stored rating: 0 First / 1 Last, or the emotion index + 1 (1-4). */
export const bubbleChecks: CheckRules<BubbleStimulusSpec> = {
  answer: { type: 'integer', minimum: 0, maximum: 4 },
  passed: (check, { value }) => value === check.answer,
  // Unlabelled: the same value is a side or an emotion depending on the page's query (emotion=1).
  answerOf: ({ value }) => value,
};

export const bubbleStimulus: StimulusRules<BubbleStimulusSpec> = {
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['sourceA'],
    properties: { sourceA: BUBBLE_MEDIA_SCHEMA, sourceB: BUBBLE_MEDIA_SCHEMA, check: checkSchema(bubbleChecks.answer) },
  },
  media: (spec) => SIDES.flatMap((side) => (spec[side] ? [[`${side}.source`, spec[side].source] as [string, string]] : [])),
  view(id, spec, mediaName): BubblePlaylistStimulus {
    const side = (m: BubbleMediaSpec): BubbleMedia => ({
      stimuli_id: id,
      source: mediaName(m.source),
      height: m.height,
      width: m.width,
      blur: m.blur,
      radius: m.radius,
      golden: m.golden ?? false,
    });
    return { stimuli_id: id, sourceA: side(spec.sourceA), ...(spec.sourceB ? { sourceB: side(spec.sourceB) } : {}) };
  },
  columns: (spec) => ({
    stimulus_type: null,
    source: null,
    source_a: spec.sourceA.source,
    source_b: spec.sourceB?.source ?? null,
    source_c: null,
    source_d: null,
    reversed: null,
    reference_value: null,
  }),
};

/**
 * The analysis's bubble screenings of one play: one per media recorded (A, and B in pair mode), in stimulus pixels
 * of the media as declared, the window radius as declared, and how long the media was up (the last sample weighs
 * until then).
 */
export function bubbleScreenings({ spec, mouseLogs, shownMs, rating }: AnalysedScreening<BubbleStimulusSpec>) {
  const sides = [
    ['A', spec.sourceA, mouseLogs.mediaA, shownMs.A],
    ['B', spec.sourceB, mouseLogs.mediaB, shownMs.B],
  ] as const;
  return sides.flatMap(([media, side, samples, durationMs]) =>
    side && samples.length > 0
      ? [
          {
            stimulus: side.source,
            media,
            width: side.width,
            height: side.height,
            radius: side.radius,
            samples: samples.map(({ x, y, t }) => ({ x, y, t })),
            durationMs,
            rating,
            expectedEmotion: null,
          },
        ]
      : [],
  );
}
