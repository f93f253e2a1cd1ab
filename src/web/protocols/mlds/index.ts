import { ChoiceResponse } from '../choice/ChoiceResponse.js';
import { pairValue, type PairAnswer } from '../pair/plan.js';
import type { ProtocolModule } from '../types.js';
import { MLDS_CATEGORIES, mldsMedia, mldsParams, planMlds, type MldsParams } from './plan.js';

/** maximum_likelihood_difference_scaling (/mlds/{id}): which of two pairs differs more; top 0, bottom 1. */
export const maximumLikelihoodDifferenceScaling: ProtocolModule<MldsParams, PairAnswer> = {
  name: 'maximum_likelihood_difference_scaling',
  categories: MLDS_CATEGORIES,
  params: mldsParams,
  mediaOf: (stimulus) => mldsMedia(stimulus),
  plan: planMlds,
  ResponseView: ChoiceResponse,
  value: (answer) => pairValue(answer),
  instructionImage: '/instructions/mlds.svg',
};
