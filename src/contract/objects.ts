/**
 * How a 3D object (a `model` media: glTF mesh or PLY point cloud) is presented (docs/3d-objects.md). The job's
 * `objects` sets them for the study, a stimulus's `object` overrides them key by key. Every key is optional; the
 * defaults are `OBJECT_DEFAULTS`. Plain data and a plain JSON Schema (no schema library: the participant bundle
 * imports this file); the job schema wraps it with TypeBox.
 */

export interface ObjectOptions {
  /** 'turntable': the camera orbits at a declared speed; 'inspect': the participant rotates and zooms. */
  mode?: 'turntable' | 'inspect';
  degreesPerSecond?: number;
  elevationDeg?: number;
  startAzimuthDeg?: number;
  /** Turntable length in turns; `frames` wins when both are given. */
  turns?: number;
  /** Turntable length in poses (pose k is shown at k / posesPerSecond s after the onset). */
  frames?: number;
  /** Turntable pose rate: the same poses at the same times on every display. */
  posesPerSecond?: number;
  /** Inspect: the answer buttons appear this long after the onset. */
  minInspectMs?: number;
  /** Inspect: camera distance bounds, as multiples of the distance fitted to the object's bounds. */
  zoom?: [number, number];
  /** Inspect: camera elevation bounds, degrees. */
  elevationRange?: [number, number];
  /** Vertical field of view of the camera, degrees. */
  fovDeg?: number;
  /** Point-cloud point size, in CSS px ('screen') or object units ('world'). */
  pointSize?: number;
  pointSizeUnit?: 'screen' | 'world';
}

/** Camera samples one answer may carry (contract ViewsRecord): 10 minutes at 165 Hz. */
export const MAX_CAMERA_SAMPLES = 100_000;

export type ResolvedObjectOptions = Required<Omit<ObjectOptions, 'frames'>> & { frames: number | null };

export const OBJECT_DEFAULTS: Readonly<ResolvedObjectOptions> = {
  mode: 'turntable',
  degreesPerSecond: 36,
  elevationDeg: 15,
  startAzimuthDeg: 0,
  turns: 1,
  frames: null,
  posesPerSecond: 60,
  minInspectMs: 0,
  zoom: [0.5, 2],
  elevationRange: [-80, 80],
  fovDeg: 30,
  pointSize: 2,
  pointSizeUnit: 'screen',
};

const range = (minimum: number, maximum: number) => ({
  type: 'array',
  items: [
    { type: 'number', minimum, maximum },
    { type: 'number', minimum, maximum },
  ],
  minItems: 2,
  maxItems: 2,
});

/** JSON Schema (draft 7) of ObjectOptions: a closed object, so a misspelt key is an error at import. */
export const OBJECT_OPTIONS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    mode: { enum: ['turntable', 'inspect'] },
    degreesPerSecond: { type: 'number', exclusiveMinimum: 0, maximum: 720 },
    elevationDeg: { type: 'number', minimum: -89, maximum: 89 },
    startAzimuthDeg: { type: 'number', minimum: -3600, maximum: 3600 },
    turns: { type: 'number', exclusiveMinimum: 0, maximum: 100 },
    frames: { type: 'integer', minimum: 1, maximum: 100_000 },
    posesPerSecond: { type: 'number', minimum: 1, maximum: 360 },
    minInspectMs: { type: 'integer', minimum: 0, maximum: 600_000 },
    zoom: range(0.05, 20),
    elevationRange: range(-89, 89),
    fovDeg: { type: 'number', minimum: 5, maximum: 120 },
    pointSize: { type: 'number', exclusiveMinimum: 0, maximum: 1000 },
    pointSizeUnit: { enum: ['screen', 'world'] },
  },
} as const;

/** The options in force for one stimulus: its own `object` keys over the job's `objects` over the defaults. */
export function resolveObjectOptions(job: ObjectOptions | undefined, stimulus: ObjectOptions | undefined): ResolvedObjectOptions {
  const defined = (o: ObjectOptions | undefined) => Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined));
  return { ...OBJECT_DEFAULTS, ...defined(job), ...defined(stimulus) } as ResolvedObjectOptions;
}

/** Problems of options that pass the schema: bounds in the wrong order, a zoom range without the fitted view. */
export function objectOptionProblems(options: ObjectOptions): Array<[field: string, message: string]> {
  const problems: Array<[string, string]> = [];
  if (options.zoom && !(options.zoom[0] <= 1 && 1 <= options.zoom[1])) problems.push(['zoom', 'must be [min, max] with min ≤ 1 ≤ max (1 = the fitted distance)']);
  if (options.elevationRange && options.elevationRange[0] > options.elevationRange[1]) problems.push(['elevationRange', 'must be [min, max] with min ≤ max']);
  return problems;
}
