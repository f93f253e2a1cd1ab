import { acceptabilityAnnoyance } from './accann/index.js';
import { absoluteCategoryRating } from './acr/index.js';
import { bubble } from './bubble/index.js';
import { doubleStimulusImpairmentScale } from './dsis/index.js';
import { maximumLikelihoodDifferenceScaling } from './mlds/index.js';
import { mldsPair } from './mlds-pair/index.js';
import { pairComparison } from './pair/index.js';
import { piiface } from './piiface/index.js';
import { triplet } from './triplet/index.js';
import type { ProtocolDefinition } from './types.js';

/**
 * THE table of protocols, read by the server (study import, playlists, answers, export) and by the web (routes,
 * eligibility, instruction image, the protocol's web part). Adding a protocol: one folder and one line here
 * (docs/protocols.md "Adding a protocol").
 */
export const PROTOCOLS = {
  pair_comparison: pairComparison,
  absolute_category_rating: absoluteCategoryRating,
  double_stimulus_impairment_scale: doubleStimulusImpairmentScale,
  acceptability_annoyance: acceptabilityAnnoyance,
  maximum_likelihood_difference_scaling: maximumLikelihoodDifferenceScaling,
  triplet,
  mlds_pair: mldsPair,
  bubble,
  piiface,
} as const satisfies Record<string, ProtocolDefinition>;

export type Protocol = keyof typeof PROTOCOLS;

/** A table of protocols by name: PROTOCOLS, or (in tests) PROTOCOLS with extra ones registered. */
export type ProtocolRegistry = Readonly<Record<string, ProtocolDefinition>>;

export const PROTOCOL_NAMES = Object.keys(PROTOCOLS) as Protocol[];

/** The definition of a protocol name, or null when the registry has none. */
export function protocolOf(name: string, registry: ProtocolRegistry = PROTOCOLS): ProtocolDefinition | null {
  return Object.hasOwn(registry, name) ? registry[name]! : null;
}
