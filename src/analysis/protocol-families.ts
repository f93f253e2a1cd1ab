import type { AnalysisFamily } from './types.js';

/**
 * What the analysis needs of each protocol a `--votes` CSV may name: its family of methods and, for a rating
 * protocol, the scores of its reporting scale (its stored answer values through its own analysis adapter: ACR's
 * index 0 = Excellent … 4 = Bad is reported as 5 … 1). The protocol definitions say the same
 * (src/protocols/<name>/index.ts: `analysis.family`, `answers.ratingValues`); this copy keeps the analysis core
 * from loading them (their stimulus rules, plans and layouts). votes-csv.test.ts checks it against
 * src/protocols/registry.ts, name by name and in the registry's order: a new protocol needs its line here too.
 */
export const PROTOCOL_FAMILIES = {
  pair_comparison: { family: 'paired', scale: null },
  absolute_category_rating: { family: 'rating', scale: [1, 2, 3, 4, 5] },
  double_stimulus_impairment_scale: { family: 'rating', scale: [1, 2, 3, 4, 5] },
  acceptability_annoyance: { family: 'rating', scale: [0, 1, 2] },
  maximum_likelihood_difference_scaling: { family: 'mlds', scale: null },
  triplet: { family: 'triplet', scale: null },
  mlds_pair: { family: 'paired', scale: null },
  bubble: { family: 'bubble', scale: null },
  piiface: { family: 'piiface', scale: null },
} as const satisfies Record<string, { family: AnalysisFamily; scale: readonly number[] | null }>;

/** A protocol's line of the table, or null for a name it lacks (`toString` included). */
export function protocolFamilyOf(protocol: string): { family: AnalysisFamily; scale: readonly number[] | null } | null {
  return Object.hasOwn(PROTOCOL_FAMILIES, protocol) ? PROTOCOL_FAMILIES[protocol as keyof typeof PROTOCOL_FAMILIES] : null;
}
