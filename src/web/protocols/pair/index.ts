import type { ProtocolModule } from '../types.js';
import { PairResponse } from './PairResponse.js';
import { PAIR_CATEGORIES, pairMedia, pairParams, pairValue, planPair, type PairAnswer, type PairParams } from './plan.js';

/** pair_comparison (/pvid/{id}): two stimuli, the participant picks one. */
export const pairComparison: ProtocolModule<PairParams, PairAnswer> = {
  name: 'pair_comparison',
  categories: PAIR_CATEGORIES,
  params: pairParams,
  mediaOf: pairMedia,
  plan: planPair,
  ResponseView: PairResponse,
  value: (answer) => pairValue(answer),
  instructionImage: '/instructions/pair.svg',
};
