import type { TSchema } from '@sinclair/typebox';
import type { Protocol } from '../../contract/protocols.js';
import { StudyBubbleStimulus, StudyPiifaceStimulus, StudyStimulus } from '../../contract/stimulus.js';

type Source = 'sourceA' | 'sourceB' | 'sourceC' | 'sourceD' | 'source';

/**
 * Which sources a generic stimulus must carry for each rating protocol. `oneOf` means exactly one of them
 * (single-stimulus protocols accept `source` or `sourceA`). Sources not listed are refused, so a forgotten or
 * misplaced field is reported instead of being silently ignored by the client.
 */
const SOURCES_OF_PROTOCOL: Record<Exclude<Protocol, 'bubble' | 'piiface'>, { all?: Source[]; oneOf?: Source[] }> = {
  pair_comparison: { all: ['sourceA', 'sourceB'] },
  double_stimulus_impairment_scale: { all: ['sourceA', 'sourceB'] },
  mlds_pair: { all: ['sourceA', 'sourceB'] },
  triplet: { all: ['sourceA', 'sourceB', 'sourceC'] },
  maximum_likelihood_difference_scaling: { all: ['sourceA', 'sourceB', 'sourceC', 'sourceD'] },
  absolute_category_rating: { oneOf: ['source', 'sourceA'] },
  acceptability_annoyance: { oneOf: ['source', 'sourceA'] },
};
const ALL_SOURCES: Source[] = ['sourceA', 'sourceB', 'sourceC', 'sourceD', 'source'];

/** The schema a study stimulus of this protocol must match. */
export function stimulusSchemaOf(protocol: Protocol): TSchema {
  if (protocol === 'bubble') return StudyBubbleStimulus;
  if (protocol === 'piiface') return StudyPiifaceStimulus;
  return StudyStimulus;
}

/** Shape problems of a (schema-valid) generic stimulus: missing and unexpected sources, as [field, message]. */
export function sourceProblems(protocol: Protocol, stimulus: Record<string, unknown>): Array<[string, string]> {
  if (protocol === 'bubble' || protocol === 'piiface') return [];
  const rule = SOURCES_OF_PROTOCOL[protocol];
  const present = ALL_SOURCES.filter((s) => stimulus[s] !== undefined);
  const allowed = [...(rule.all ?? []), ...(rule.oneOf ?? [])];
  const problems: Array<[string, string]> = [];
  for (const s of rule.all ?? []) if (!present.includes(s)) problems.push([s, `required by ${protocol}`]);
  if (rule.oneOf) {
    const given = present.filter((s) => rule.oneOf!.includes(s));
    if (given.length !== 1) problems.push(['', `${protocol} needs exactly one of ${rule.oneOf.join(' or ')}`]);
  }
  for (const s of present) if (!allowed.includes(s)) problems.push([s, `not used by ${protocol} (it takes ${allowed.join(', ')})`]);
  return problems;
}

/** Every media path a (shape-valid) study stimulus references, with the field it comes from. */
export function stimulusSources(protocol: Protocol, stimulus: Record<string, unknown>): Array<[string, string]> {
  if (protocol === 'bubble') {
    return (['sourceA', 'sourceB'] as const)
      .filter((side) => stimulus[side] !== undefined)
      .map((side) => [`${side}.source`, (stimulus[side] as { source: string }).source]);
  }
  if (protocol === 'piiface') return [['source', stimulus.source as string]];
  return ALL_SOURCES.filter((s) => typeof stimulus[s] === 'string').map((s) => [s, stimulus[s] as string]);
}
