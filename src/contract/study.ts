import { Type, type Static } from '@sinclair/typebox';
import { JobFields } from './job.js';
import { StudyBubbleStimulus, StudyPiifaceStimulus, StudyStimulus } from './stimulus.js';

/**
 * A study file: one JSON document next to a media folder (see README "Study files").
 * The stimulus shape of each playlist must match the job's protocol (checked on import).
 */
export const StudyPlaylist = Type.Object(
  {
    stimuli: Type.Array(Type.Union([StudyStimulus, StudyBubbleStimulus, StudyPiifaceStimulus]), { minItems: 1, maxItems: 10000 }),
    training: Type.Optional(
      Type.Array(Type.Union([StudyStimulus, StudyBubbleStimulus, StudyPiifaceStimulus]), { maxItems: 1000 }),
    ),
  },
  { additionalProperties: false },
);

export const StudyFile = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
    job: JobFields,
    media: Type.String({ minLength: 1, maxLength: 500 }),
    playlists: Type.Array(StudyPlaylist, { minItems: 1, maxItems: 1000 }),
  },
  { additionalProperties: false },
);
export type StudyFile = Static<typeof StudyFile>;
