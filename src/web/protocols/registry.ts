import type { RatingProtocol } from '../../contract/protocols.js';
import { acceptabilityAnnoyance } from './accann/index.js';
import { absoluteCategoryRating } from './acr/index.js';
import { doubleStimulusImpairmentScale } from './dsis/index.js';
import { maximumLikelihoodDifferenceScaling } from './mlds/index.js';
import { mldsPair } from './mlds-pair/index.js';
import { pairComparison } from './pair/index.js';
import { triplet } from './triplet/index.js';
import type { AnyProtocolModule } from './types.js';

/**
 * THE table of protocol modules used by the generic test page. A protocol without a module (not built yet)
 * shows the incompatible-configuration screen.
 */
export const PROTOCOL_MODULES: Record<RatingProtocol, AnyProtocolModule | null> = {
  pair_comparison: pairComparison,
  absolute_category_rating: absoluteCategoryRating,
  double_stimulus_impairment_scale: doubleStimulusImpairmentScale,
  acceptability_annoyance: acceptabilityAnnoyance,
  maximum_likelihood_difference_scaling: maximumLikelihoodDifferenceScaling,
  triplet: triplet,
  mlds_pair: mldsPair,
};

export function moduleOf(protocol: RatingProtocol): AnyProtocolModule | null {
  return PROTOCOL_MODULES[protocol];
}
