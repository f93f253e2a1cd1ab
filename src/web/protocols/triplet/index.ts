import { ChoiceResponse } from '../choice/ChoiceResponse.js';
import { pairValue, type PairAnswer } from '../pair/plan.js';
import type { ProtocolModule } from '../types.js';
import { planTriplet, TRIPLET_CATEGORIES, tripletMedia, tripletParams, type TripletParams } from './plan.js';

/** triplet (/triplet/{id}): which side (left 0, right 1) is closer to the middle stimulus. */
export const triplet: ProtocolModule<TripletParams, PairAnswer> = {
  name: 'triplet',
  categories: TRIPLET_CATEGORIES,
  params: tripletParams,
  mediaOf: (stimulus) => tripletMedia(stimulus),
  plan: planTriplet,
  ResponseView: ChoiceResponse,
  value: (answer) => pairValue(answer),
  instructionImage: '/instructions/triplet.svg',
};
