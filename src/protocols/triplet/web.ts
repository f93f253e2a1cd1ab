import { choiceProtocol } from '../common/choice/choiceProtocol.js';
import { planTriplet, TRIPLET_CATEGORIES, tripletMedia, tripletParams, type TripletParams } from './plan.js';

/** The triplet web part: A B C in a row; left 0, right 1. */
export default choiceProtocol<TripletParams>({ categories: TRIPLET_CATEGORIES, params: tripletParams, mediaOf: (stimulus) => tripletMedia(stimulus), plan: planTriplet });
