import { scaleProtocol } from '../levels/scaleProtocol.js';
import { PAIR_CATEGORIES } from '../pair/plan.js';
import { dsisMedia, dsisParams, planDsis, type DsisParams } from './scale.js';

/**
 * double_stimulus_impairment_scale (/dsis/{id}): the reference, then the impaired stimulus, then the impairment
 * scale; value = ITU grade 5 (Imperceptible) ... 1 (Very annoying). A playlist with stimulis_training runs a
 * training first: each example shows its reference score and 'Next scoring example', and nothing is sent.
 */
export const doubleStimulusImpairmentScale = scaleProtocol<DsisParams>({
  name: 'double_stimulus_impairment_scale',
  categories: PAIR_CATEGORIES,
  params: dsisParams,
  mediaOf: dsisMedia,
  plan: planDsis,
  instructionImage: '/instructions/dsis.svg',
});
