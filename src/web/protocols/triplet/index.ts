import { choiceProtocol } from '../choice/choiceProtocol.js';
import { planTriplet, TRIPLET_CATEGORIES, tripletMedia, tripletParams, type TripletParams } from './plan.js';

/** triplet (/triplet/{id}): which side (left 0, right 1) is closer to the middle stimulus. */
export const triplet = choiceProtocol<TripletParams>({
  name: 'triplet',
  categories: TRIPLET_CATEGORIES,
  params: tripletParams,
  mediaOf: (stimulus) => tripletMedia(stimulus),
  plan: planTriplet,
  instructionImage: '/instructions/triplet.svg',
});
