import { Type, type Static } from '@sinclair/typebox';

/** Media file name relative to the study's media folder (no directories up, no absolute paths). */
export const MediaFile = Type.String({ pattern: '^(?!.*\\.\\.)[A-Za-z0-9_][A-Za-z0-9._/-]{0,200}$' });

/** Study-file stimulus of the generic page (SPEC §3); the server assigns stimuliId. */
export const StudyStimulus = Type.Object(
  {
    sourceA: Type.Optional(MediaFile),
    sourceB: Type.Optional(MediaFile),
    sourceC: Type.Optional(MediaFile),
    sourceD: Type.Optional(MediaFile),
    source: Type.Optional(MediaFile),
    reversed: Type.Optional(Type.Boolean()),
    /** Training reference score. */
    value: Type.Optional(Type.Number()),
  },
  { additionalProperties: false },
);
export type StudyStimulus = Static<typeof StudyStimulus>;

export const StudyBubbleMedia = Type.Object(
  {
    source: MediaFile,
    height: Type.Integer({ minimum: 1, maximum: 8192 }),
    width: Type.Integer({ minimum: 1, maximum: 8192 }),
    blur: Type.Number({ minimum: 0, maximum: 200 }),
    radius: Type.Number({ minimum: 1, maximum: 4096 }),
    golden: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const StudyBubbleStimulus = Type.Object(
  { sourceA: StudyBubbleMedia, sourceB: Type.Optional(StudyBubbleMedia) },
  { additionalProperties: false },
);
export type StudyBubbleStimulus = Static<typeof StudyBubbleStimulus>;

export const StudyPiifaceStimulus = Type.Object(
  { type: Type.String({ maxLength: 500 }), source: MediaFile },
  { additionalProperties: false },
);
export type StudyPiifaceStimulus = Static<typeof StudyPiifaceStimulus>;
