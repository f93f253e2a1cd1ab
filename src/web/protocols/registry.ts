import type { RatingProtocol } from '../../contract/protocols.js';
import { pairComparison } from './pair/index.js';
import type { AnyProtocolModule } from './types.js';

/**
 * THE table of protocol modules used by the generic test page. A protocol without a module (not built yet)
 * shows the incompatible-configuration screen.
 */
export const PROTOCOL_MODULES: Record<RatingProtocol, AnyProtocolModule | null> = {
  pair_comparison: pairComparison,
  absolute_category_rating: null,
  double_stimulus_impairment_scale: null,
  acceptability_annoyance: null,
  maximum_likelihood_difference_scaling: null,
  triplet: null,
  mlds_pair: null,
};

export function moduleOf(protocol: RatingProtocol): AnyProtocolModule | null {
  return PROTOCOL_MODULES[protocol];
}
