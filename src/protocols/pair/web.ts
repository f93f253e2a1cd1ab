import type { PairAnswer } from '../common/choice/ChoiceResponse.js';
import type { StagedModule } from '../types.js';
import { PairResponse } from './PairResponse.js';
import { PAIR_CATEGORIES, pairLabels, pairMedia, pairParams, pairValue, planPair, type PairParams } from './plan.js';

/** The pair comparison's web part: layouts 1-4, the First/Last dialog with Replay. */
const pairWeb: StagedModule<PairParams, PairAnswer> = {
  kind: 'staged',
  categories: PAIR_CATEGORIES,
  params: pairParams,
  mediaOf: pairMedia,
  plan: planPair,
  ResponseView: PairResponse,
  value: (answer) => pairValue(answer),
  answerLabel: (value, stimulus, params, strings) => {
    const labels = pairLabels(stimulus, params);
    return strings[value === 0 ? labels.first : labels.last];
  },
};
export default pairWeb;
