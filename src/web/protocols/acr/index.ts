import { LevelResponse } from '../levels/LevelResponse.js';
import { planSingle, SINGLE_CATEGORIES, singleMedia } from '../levels/singleStimulus.js';
import type { ProtocolModule } from '../types.js';
import { acrParams, type AcrParams } from './scale.js';

/** absolute_category_rating (/acr/{id}): one image or video, then the five ACR levels; value = level index 0-4. */
export const absoluteCategoryRating: ProtocolModule<AcrParams, number> = {
  name: 'absolute_category_rating',
  categories: SINGLE_CATEGORIES,
  params: acrParams,
  mediaOf: (stimulus) => singleMedia(stimulus),
  plan: planSingle,
  ResponseView: LevelResponse,
  value: (answer) => answer,
  instructionImage: '/instructions/acr.svg',
};
