import { pairValue } from '../../pair/plan.js';
import type { StagedModule } from '../../types.js';
import { ChoiceResponse, type ChoiceParams, type PairAnswer } from './ChoiceResponse.js';

/**
 * A two-option staged protocol (MLDS, triplet): the two-option dialog with the job's labels, and a positional value
 * like a pair's (first/left/top 0, the other 1; SPEC §5). The protocol states its layouts, media and plan.
 */
export function choiceProtocol<P extends ChoiceParams>(
  parts: Pick<StagedModule<P, PairAnswer>, 'categories' | 'params' | 'mediaOf' | 'plan'>,
): StagedModule<P, PairAnswer> {
  return {
    kind: 'staged',
    ...parts,
    ResponseView: ChoiceResponse,
    value: (answer) => pairValue(answer),
    answerLabel: (value, _stimulus, params, strings) => (params.labels ? strings[value === 0 ? params.labels.first : params.labels.last] : null),
  };
}
