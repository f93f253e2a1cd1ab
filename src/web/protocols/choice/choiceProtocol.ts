import { pairValue, type PairAnswer } from '../pair/plan.js';
import type { ProtocolModule } from '../types.js';
import { ChoiceResponse, type ChoiceParams } from './ChoiceResponse.js';

/**
 * A two-option protocol (MLDS, triplet): the two-option dialog with the job's labels, and a positional value like a
 * pair's (first/left/top 0, the other 1; SPEC §5). The protocol states its layouts, media and plan.
 */
export function choiceProtocol<P extends ChoiceParams>(
  parts: Omit<ProtocolModule<P, PairAnswer>, 'ResponseView' | 'value'>,
): ProtocolModule<P, PairAnswer> {
  return { ...parts, ResponseView: ChoiceResponse, value: (answer) => pairValue(answer) };
}
