import { describe, expect, it } from 'vitest';
import Ajv from 'ajv';
import { Value } from '@sinclair/typebox/value';
import { OBJECT_OPTIONS_SCHEMA } from '../../src/contract/objects.js';
import { ObjectOptionsSchema } from '../../src/contract/job.js';

// The 3D options are declared twice: as plain JSON Schema (the first bundle has no TypeBox) and as TypeBox (study
// files are checked with TypeBox's checker). Both must accept and refuse the same options.
const samples: Array<[string, unknown, boolean]> = [
  ['empty', {}, true],
  ['turntable', { mode: 'turntable', degreesPerSecond: 45, elevationDeg: 20, turns: 1, posesPerSecond: 60 }, true],
  ['inspect', { mode: 'inspect', minInspectMs: 3000, zoom: [0.6, 2], elevationRange: [-60, 60] }, true],
  ['points', { pointSize: 2, pointSizeUnit: 'world', fovDeg: 30 }, true],
  ['unknown key', { speed: 3 }, false],
  ['bad mode', { mode: 'spin' }, false],
  ['zero speed', { degreesPerSecond: 0 }, false],
  ['elevation 90', { elevationDeg: 90 }, false],
  ['fractional frames', { frames: 1.5 }, false],
  ['zoom of three', { zoom: [0.5, 1, 2] }, false],
  ['zoom out of range', { zoom: [0.01, 2] }, false],
  ['fov 200', { fovDeg: 200 }, false],
  ['negative inspect', { minInspectMs: -1 }, false],
  ['bad unit', { pointSizeUnit: 'mm' }, false],
];

describe('3D options schema', () => {
  const validate = new Ajv({ strict: false }).compile(OBJECT_OPTIONS_SCHEMA);
  it.each(samples)('%s: both schemas agree', (_name, options, valid) => {
    expect(validate(options)).toBe(valid);
    expect(Value.Check(ObjectOptionsSchema, options)).toBe(valid);
  });
});
