import { Type, type Static } from '@sinclair/typebox';

const Int = (opts: object = {}) => Type.Integer(opts);

const Num = (opts: object) => Type.Optional(Type.Number(opts));
const Range = (minimum: number, maximum: number) => Type.Optional(Type.Tuple([Type.Number({ minimum, maximum }), Type.Number({ minimum, maximum })]));
/**
 * The 3D options (contract/objects.ts ObjectOptions, docs/3d-objects.md) as TypeBox, so that TypeBox's own checker
 * reads study files too; the same bounds as OBJECT_OPTIONS_SCHEMA, which the first bundle uses without TypeBox
 * (tests/unit/objects-schema.test.ts compares the two).
 */
export const ObjectOptionsSchema = Type.Object(
  {
    mode: Type.Optional(Type.Union([Type.Literal('turntable'), Type.Literal('inspect')])),
    degreesPerSecond: Num({ exclusiveMinimum: 0, maximum: 720 }),
    elevationDeg: Num({ minimum: -89, maximum: 89 }),
    startAzimuthDeg: Num({ minimum: -3600, maximum: 3600 }),
    turns: Num({ exclusiveMinimum: 0, maximum: 100 }),
    frames: Type.Optional(Int({ minimum: 1, maximum: 100_000 })),
    posesPerSecond: Num({ minimum: 1, maximum: 360 }),
    minInspectMs: Type.Optional(Int({ minimum: 0, maximum: 600_000 })),
    zoom: Range(0.05, 20),
    elevationRange: Range(-89, 89),
    fovDeg: Num({ minimum: 5, maximum: 120 }),
    pointSize: Num({ exclusiveMinimum: 0, maximum: 1000 }),
    pointSizeUnit: Type.Optional(Type.Union([Type.Literal('screen'), Type.Literal('world')])),
  },
  { additionalProperties: false },
);

/**
 * Job fields of SPEC §3, as written in a study file and served by GET /api/jobs/{id}.
 * Optional extensions (not in the spec, documented in docs/study-files.md): displayMs, largeLoading, coloredScale,
 * completionUrl, visualTests, instructionPages, afterTrainingMsg, allowPlaylistChoice, minRefreshHz, objects,
 * scaling.
 */
export const JobFields = Type.Object(
  {
    question: Type.String({ maxLength: 4000 }),
    welcomeTitle: Type.String({ maxLength: 500 }),
    welcomeMsg: Type.String({ maxLength: 50_000 }),
    instructionTitle: Type.String({ maxLength: 500 }),
    instructionMsg: Type.String({ maxLength: 50_000 }),
    /** A protocol of the registry (src/protocols/registry.ts); the importer checks the name. */
    subjectiveProtocol: Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$' }),
    targetScreenSizeHeight: Int({ minimum: 0, maximum: 20000 }),
    targetScreenSizeWidth: Int({ minimum: 0, maximum: 20000 }),
    maxScreenSizeHeight: Int({ minimum: 0, maximum: 20000 }),
    maxScreenSizeWidth: Int({ minimum: 0, maximum: 20000 }),
    requestFullScreen: Type.Union([Type.Literal(0), Type.Literal(1)]),
    /** Stimulus layout (categoryTest) 1..5; below 3 the question is shown along the test. */
    category_id: Int({ minimum: 0, maximum: 9 }),
    backgroundColor: Type.String({ pattern: '^#[0-9a-fA-F]{6}$' }),
    /** Extension: image display duration in ms (SPEC default 1000). */
    displayMs: Type.Optional(Int({ minimum: 100, maximum: 60000 })),
    /** Extension: large-loading mode shows a Start Test button after loading. */
    largeLoading: Type.Optional(Type.Boolean()),
    /** Extension: coloured ACR scale (green, orange, red). */
    coloredScale: Type.Optional(Type.Boolean()),
    /** Extension: Prolific completion link shown on the end screen, e.g. https://app.prolific.com/submissions/complete?cc=CODE */
    completionUrl: Type.Optional(Type.String({ pattern: '^https://', maxLength: 2000 })),
    /** Extension: visual screening tests run before the welcome screen, in this order. */
    visualTests: Type.Optional(Type.Array(Type.Union([Type.Literal('acuity'), Type.Literal('color')]), { maxItems: 2 })),
    /** Extension: extra instruction pages (HTML), shown after instructionMsg. */
    instructionPages: Type.Optional(Type.Array(Type.String({ maxLength: 50_000 }), { maxItems: 20 })),
    /** Extension: the test instructions shown once the training is over (HTML); default, a short built-in page. */
    afterTrainingMsg: Type.Optional(Type.String({ maxLength: 50_000 })),
    /**
     * Extension: honour `playlist_id` from any participant link (a lab assigning playlists by hand). Without it only
     * a signed link (`cli link`) chooses the playlist, so outsiders cannot steer the balancing.
     */
    allowPlaylistChoice: Type.Optional(Type.Boolean()),
    /**
     * Extension: the display must refresh at least this often (Hz), e.g. 120 for a study of fast motion. Measured on
     * the eligibility screen from frame intervals; shown as one more pass/fail line.
     */
    minRefreshHz: Type.Optional(Int({ minimum: 1, maximum: 1000 })),
    /** Extension: how 3D objects are presented (docs/3d-objects.md); a stimulus's `object` overrides it per key. */
    objects: Type.Optional(ObjectOptionsSchema),
    /**
     * Extension: how media pixels map to the display's device pixels (docs/pixels.md). 'integer'
     * (default): k×k device pixels per media pixel, k the whole part of the device pixel ratio; 'native': one device
     * pixel per media pixel; 'fit': shrunk to fit the window, filtered linearly (the old behaviour).
     */
    scaling: Type.Optional(Type.Union([Type.Literal('integer'), Type.Literal('native'), Type.Literal('fit')])),
    /**
     * Extension: what happens to a trial the stage interrupted (a hidden page, a lost GPU context, another screen:
     * docs/timing.md). 'replay' (default): played again from its start once drawing is steady, at
     * most `interruptionReplays` times; 'skip': not played again. Either way, a trial not played through is answered
     * with its interruption recorded, and the quality rules exclude it as a technical fault (never refusing pay).
     */
    interruptedTrials: Type.Optional(Type.Union([Type.Literal('replay'), Type.Literal('skip')])),
    /** Extension: replays of an interrupted trial at most (default 2). */
    interruptionReplays: Type.Optional(Int({ minimum: 0, maximum: 10 })),
  },
  { additionalProperties: false },
);
export type JobFields = Static<typeof JobFields>;

/** GET /api/jobs/{id}: the job fields, the id, and background_color (the piiface spelling). */
export type JobResponse = JobFields & { id: string; background_color: string };
