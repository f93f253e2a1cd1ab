import { singleStimulusScaleProtocol } from '../levels/scaleProtocol.js';
import { acrParams, type AcrParams } from './scale.js';

/** absolute_category_rating (/acr/{id}): one image or video, then the five ACR levels; value = level index 0-4. */
export const absoluteCategoryRating = singleStimulusScaleProtocol<AcrParams>({
  name: 'absolute_category_rating',
  params: acrParams,
  instructionImage: '/instructions/acr.svg',
});
