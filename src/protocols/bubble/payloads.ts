/** The bubble rating's values (SPEC §5). Pure; unit-tested. The posts themselves are the answer pipeline's. */

export type PairChoice = 'first' | 'last';

/** SPEC §5: the first option gives 0, the other 1. */
export function pairValue(choice: PairChoice): number {
  return choice === 'first' ? 0 : 1;
}

/** SPEC §5: the bubble emotion value is the selected index plus 1. */
export function emotionValue(index: number): number {
  return index + 1;
}
