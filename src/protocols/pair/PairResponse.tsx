import { ChoiceDialog, type PairAnswer } from '../common/choice/ChoiceResponse.js';
import type { ResponseViewProps } from '../types.js';
import { pairLabels, type PairParams } from './plan.js';

/**
 * The pair vote dialog (SPEC §4 steps 2-5): the shared two-option dialog with the labels of the pair's layout,
 * which can change from one stimulus to the next (a stacked pair of videos).
 */
export function PairResponse({ params, stimulus, strings, busy, onAnswer, onReplay }: ResponseViewProps<PairParams, PairAnswer>) {
  return <ChoiceDialog labels={pairLabels(stimulus, params)} strings={strings} busy={busy} onAnswer={onAnswer} onReplay={onReplay} />;
}
