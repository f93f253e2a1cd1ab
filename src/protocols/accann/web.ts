import { singleStimulusScaleProtocol } from '../common/levels/scaleProtocol.js';
import { accannParams, type AccannParams } from './scale.js';

/** The acceptability web part: one image or video, then the two-group acceptability dialog (see scale.ts). */
export default singleStimulusScaleProtocol<AccannParams>(accannParams);
