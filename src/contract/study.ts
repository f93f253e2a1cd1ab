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
    stimuli: Type.Array(Type.Unknown(), { minItems: 1, maxItems: 10000 }),
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

export const StudyFile = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
    job: JobFields,
    media: Type.String({ minLength: 1, maxLength: 500 }),
    playlists: Type.Array(StudyPlaylist, { minItems: 1, maxItems: 1000 }),
    /** Media file (path in the media folder) -> its attributes for the analysis. */
    mediaAttributes: Type.Optional(Type.Record(Type.String({ pattern: MEDIA_FILE_PATTERN }), MediaAttributes)),
    /** Quality control: session acceptance rules, target of accepted observers, bonus (docs/quality.md). */
    quality: Type.Optional(StudyQuality),
  },
  { additionalProperties: false },
);
export type StudyFile = Static<typeof StudyFile>;
