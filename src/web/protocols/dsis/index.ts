import { LevelResponse } from '../levels/LevelResponse.js';
import { PAIR_CATEGORIES } from '../pair/plan.js';
import type { ProtocolModule } from '../types.js';
import { dsisMedia, dsisParams, planDsis, type DsisParams } from './scale.js';

/**
 * double_stimulus_impairment_scale (/dsis/{id}): the reference, then the impaired stimulus, then the impairment
 * scale; value = ITU grade 5 (Imperceptible) ... 1 (Very annoying). A playlist with stimulis_training runs a
 * training first: each example shows its reference score and 'Next scoring example', and nothing is sent.
 */
export const doubleStimulusImpairmentScale: ProtocolModule<DsisParams, number> = {
  name: 'double_stimulus_impairment_scale',
  categories: PAIR_CATEGORIES,
  params: dsisParams,
  mediaOf: dsisMedia,
  plan: planDsis,
  ResponseView: LevelResponse,
  value: (answer) => answer,
  instructionImage: '/instructions/dsis.svg',
};
