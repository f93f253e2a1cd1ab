import type { PlaylistStimulus } from '../../contract/playlist.js';
import { OBJECT_OPTIONS_SCHEMA, objectOptionProblems } from '../../contract/objects.js';
import { MEDIA_FILE_PATTERN, type GenericStimulusSpec } from '../../contract/stimulus.js';
import type { JsonSchema, StimulusColumns, StimulusRules } from '../types.js';
import { checkSchema } from './checks.js';

/**
 * The stimulus of the generic test page (SPEC §3: sourceA and sourceB for pairs, optionally sourceC and sourceD,
 * or a single source; reversed; value), shared by the seven staged protocols. Each protocol says which sources it
 * takes; a source it does not use is an error, so a forgotten or misplaced field is reported at import instead of
 * being silently ignored by the client.
 */

export type Source = 'sourceA' | 'sourceB' | 'sourceC' | 'sourceD' | 'source';
const SOURCES: readonly Source[] = ['sourceA', 'sourceB', 'sourceC', 'sourceD', 'source'];

export const MEDIA_FILE_SCHEMA: JsonSchema = { type: 'string', pattern: MEDIA_FILE_PATTERN };

/** The generic stimulus; `check` (gold, trap, attention) takes the protocol's answer schema. */
function genericStimulusSchema(checkAnswer: JsonSchema | null): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      sourceA: MEDIA_FILE_SCHEMA,
      sourceB: MEDIA_FILE_SCHEMA,
      sourceC: MEDIA_FILE_SCHEMA,
      sourceD: MEDIA_FILE_SCHEMA,
      source: MEDIA_FILE_SCHEMA,
      reversed: { type: 'boolean' },
      /** Training reference score. */
      value: { type: 'number' },
      /** 3D presentation options over the job's `objects` (docs/3d-objects.md). */
      object: OBJECT_OPTIONS_SCHEMA,
      ...(checkAnswer ? { check: checkSchema(checkAnswer) } : {}),
    },
  };
}

/** `all`: sources the protocol needs; `oneOf`: exactly one of them (single-stimulus protocols take source or sourceA). */
export interface SourceRule {
  all?: readonly Source[];
  oneOf?: readonly Source[];
}

export function genericStimulus(rule: SourceRule, checkAnswer: JsonSchema | null = null): StimulusRules<GenericStimulusSpec> {
  const allowed = [...(rule.all ?? []), ...(rule.oneOf ?? [])];
  return {
    schema: genericStimulusSchema(checkAnswer),
    problems(spec, protocol) {
      const present = SOURCES.filter((s) => spec[s] !== undefined);
      const problems: Array<[string, string]> = [];
      for (const s of rule.all ?? []) if (!present.includes(s)) problems.push([s, `required by ${protocol}`]);
      if (rule.oneOf && present.filter((s) => rule.oneOf!.includes(s)).length !== 1) {
        problems.push(['', `${protocol} needs exactly one of ${rule.oneOf.join(' or ')}`]);
      }
      for (const s of present) if (!allowed.includes(s)) problems.push([s, `not used by ${protocol} (it takes ${allowed.join(', ')})`]);
      if (spec.object) for (const [field, message] of objectOptionProblems(spec.object)) problems.push([`object.${field}`, message]);
      return problems;
    },
    media: (spec) => SOURCES.filter((s) => typeof spec[s] === 'string').map((s) => [s, spec[s]!]),
    view(id, spec, mediaName): PlaylistStimulus {
      const out: PlaylistStimulus = { stimuliId: id, reversed: spec.reversed ?? false };
      for (const s of SOURCES) if (spec[s]) out[s] = mediaName(spec[s]!);
      if (spec.value !== undefined) out.value = spec.value;
      if (spec.object) out.object = spec.object;
      return out;
    },
    columns: (spec): StimulusColumns => ({
      stimulus_type: null,
      source: spec.source ?? null,
      source_a: spec.sourceA ?? null,
      source_b: spec.sourceB ?? null,
      source_c: spec.sourceC ?? null,
      source_d: spec.sourceD ?? null,
      reversed: spec.reversed === true,
      reference_value: spec.value ?? null,
    }),
  };
}
