import { choiceProtocol } from '../choice/choiceProtocol.js';
import { MLDS_CATEGORIES, mldsMedia, mldsParams, planMlds, type MldsParams } from './plan.js';

/** maximum_likelihood_difference_scaling (/mlds/{id}): which of two pairs differs more; top 0, bottom 1. */
export const maximumLikelihoodDifferenceScaling = choiceProtocol<MldsParams>({
  name: 'maximum_likelihood_difference_scaling',
  categories: MLDS_CATEGORIES,
  params: mldsParams,
  mediaOf: (stimulus) => mldsMedia(stimulus),
  plan: planMlds,
  instructionImage: '/instructions/mlds.svg',
});
