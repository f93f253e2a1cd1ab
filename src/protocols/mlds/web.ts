import { choiceProtocol } from '../common/choice/choiceProtocol.js';
import { MLDS_CATEGORIES, mldsMedia, mldsParams, planMlds, type MldsParams } from './plan.js';

/** The MLDS web part: two pairs stacked; top pair 0, bottom pair 1. */
export default choiceProtocol<MldsParams>({ categories: MLDS_CATEGORIES, params: mldsParams, mediaOf: (stimulus) => mldsMedia(stimulus), plan: planMlds });
