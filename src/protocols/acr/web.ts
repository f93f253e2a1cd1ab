import { singleStimulusScaleProtocol } from '../common/levels/scaleProtocol.js';
import { acrParams, type AcrParams } from './scale.js';

/** The ACR web part: one image or video, then the five levels; value = level index 0-4. */
export default singleStimulusScaleProtocol<AcrParams>(acrParams);
