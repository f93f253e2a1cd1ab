import { LevelResponse } from '../levels/LevelResponse.js';
import { planSingle, SINGLE_CATEGORIES, singleMedia } from '../levels/singleStimulus.js';
import type { ProtocolModule } from '../types.js';
import { accannParams, type AccannParams } from './scale.js';

/**
 * acceptability_annoyance (/accann/{id}, playlist of the ACR path): one image or video, then the acceptability
 * dialog; value = 2 Not Annoying, 1 Annoying but Acceptable, 0 Not Acceptable (see scale.ts).
 */
export const acceptabilityAnnoyance: ProtocolModule<AccannParams, number> = {
  name: 'acceptability_annoyance',
  categories: SINGLE_CATEGORIES,
  params: accannParams,
  mediaOf: (stimulus) => singleMedia(stimulus),
  plan: planSingle,
  ResponseView: LevelResponse,
  value: (answer) => answer,
  instructionImage: '/instructions/accann.svg',
};
