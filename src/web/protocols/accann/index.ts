import { singleStimulusScaleProtocol } from '../levels/scaleProtocol.js';
import { accannParams, type AccannParams } from './scale.js';

/**
 * acceptability_annoyance (/accann/{id}, playlist of the ACR path): one image or video, then the acceptability
 * dialog; value = 2 Not Annoying, 1 Annoying but Acceptable, 0 Not Acceptable (see scale.ts).
 */
export const acceptabilityAnnoyance = singleStimulusScaleProtocol<AccannParams>({
  name: 'acceptability_annoyance',
  params: accannParams,
  instructionImage: '/instructions/accann.svg',
});
