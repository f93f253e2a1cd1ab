import { scaleProtocol } from '../common/levels/scaleProtocol.js';
import { PAIR_CATEGORIES } from '../pair/plan.js';
import { dsisMedia, dsisParams, planDsis, type DsisParams } from './scale.js';

/**
 * The DSIS web part: the reference, then the impaired stimulus (pair layouts), then the impairment scale. A
 * training example shows its reference score and 'Next scoring example'; nothing is sent for it.
 */
export default scaleProtocol<DsisParams>({ categories: PAIR_CATEGORIES, params: dsisParams, mediaOf: dsisMedia, plan: planDsis });
