import { Type, type Static } from '@sinclair/typebox';
import { JobFields } from './job.js';
import { StudyQuality } from './quality.js';
import { MEDIA_FILE_PATTERN } from './stimulus.js';

/**
 * A study file: one JSON document next to a media folder (see docs/study-files.md).
 * The stimulus shape of each playlist must match the job's protocol (checked on import with the protocol's schema).
 */
export const StudyPlaylist = Type.Object(
  {
    // Each stimulus is checked against its protocol's own schema (src/protocols/*/index.ts) by the importer.
    // At least one, except in an adaptive design's playlist, which may hold training only (study/validate.ts).
    stimuli: Type.Array(Type.Unknown(), { maxItems: 10000 }),
    training: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 1000 })),
  },
  { additionalProperties: false },
);

/**
 * What the analysis knows of a media file, declared once per file (docs/study-files.md): reports group ratings by
 * `condition` and `content`, MLDS and triplets scale `level`, and `reference` marks the hidden reference of its
 * content (ACR-HR: DMOS).
 */
export const MediaAttributes = Type.Object(
  {
    condition: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    content: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    level: Type.Optional(Type.Number()),
    reference: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type MediaAttributes = Static<typeof MediaAttributes>;

/**
 * How participants' playlists are made (docs/adaptive.md). "fixed" (the default): the study's playlists. "asap"
 * (pair comparison): each new participant's own playlist, chosen at arrival from what is already known by ASAP's
 * batch mode, `comparisonsPerParticipant` pairs among each content's `conditions`; the study's one playlist then
 * holds only the training and the gold, trap and attention checks, which every participant also gets.
 */
export const StudyDesign = Type.Union([
  Type.Object({ mode: Type.Literal('fixed') }, { additionalProperties: false }),
  Type.Object(
    {
      mode: Type.Literal('asap'),
      comparisonsPerParticipant: Type.Integer({ minimum: 1, maximum: 5000 }),
      /** Media files compared with each other, one list per content (2 to 64 conditions). */
      contents: Type.Array(Type.Object({ conditions: Type.Array(Type.String({ pattern: MEDIA_FILE_PATTERN }), { minItems: 2, maxItems: 64 }) }, { additionalProperties: false }), {
        minItems: 1,
        maxItems: 2000,
      }),
      /** Fields every compared pair has besides its two sources (the protocol's stimulus fields). */
      pairFields: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    },
    { additionalProperties: false },
  ),
]);
export type StudyDesign = Static<typeof StudyDesign>;
export type AdaptiveDesign = Extract<StudyDesign, { mode: 'asap' }>;

export const StudyFile = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
    job: JobFields,
    media: Type.String({ minLength: 1, maxLength: 500 }),
    playlists: Type.Array(StudyPlaylist, { minItems: 1, maxItems: 1000 }),
    design: Type.Optional(StudyDesign),
    /** Media file (path in the media folder) -> its attributes for the analysis. */
    mediaAttributes: Type.Optional(Type.Record(Type.String({ pattern: MEDIA_FILE_PATTERN }), MediaAttributes)),
    /** Quality control: session acceptance rules, target of accepted observers, bonus (docs/quality.md). */
    quality: Type.Optional(StudyQuality),
  },
  { additionalProperties: false },
);
export type StudyFile = Static<typeof StudyFile>;
