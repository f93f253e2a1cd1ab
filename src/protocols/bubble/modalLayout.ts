/** Placement of the bubble dialogs (SPEC §2, §9). Pure. */
import type { Strings } from '../../web/i18n/index.js';

/** Emotion modal: left 33 % and 33 % wide, or left 42.5 % and 15 % wide when the question is along the test. */
export function emotionModalBox(questionAlongTest: boolean): { left: string; width: string } {
  return questionAlongTest ? { left: '42.5%', width: '15%' } : { left: '33%', width: '33%' };
}

/** SPEC §9: the dialogs sit at 40 % of the window height. */
export function dialogTop(innerHeight: number): number {
  return Math.round(0.4 * innerHeight);
}

/** The emotion radios in their order; the stored value is index + 1. */
export const EMOTION_KEYS = ['bubbleEmotionHappiness', 'bubbleEmotionAnger', 'bubbleEmotionSurprise', 'bubbleEmotionSadness'] as const satisfies readonly (keyof Strings)[];
