import type { Strings } from '../../web/i18n/index.js';

/**
 * The piiface answer scales and their encoding (SPEC §2 radios, §5 value mapping, §3 training type). Pure.
 * Indexes are 0-based positions in these lists, which are in SPEC order.
 */

/** SPEC §2 order: Anger, Disgust, Fear, Happiness, Neutral, Sadness, Surprise. */
export const EMOTION_KEYS = [
  'piifaceEmotionAnger',
  'piifaceEmotionDisgust',
  'piifaceEmotionFear',
  'piifaceEmotionHappiness',
  'piifaceEmotionNeutral',
  'piifaceEmotionSadness',
  'piifaceEmotionSurprise',
] as const satisfies readonly (keyof Strings)[];

/** SPEC §2 order: Very confident ... Not confident at all. */
export const CONFIDENCE_KEYS = [
  'piifaceConfidenceVery',
  'piifaceConfidenceFairly',
  'piifaceConfidenceSomewhat',
  'piifaceConfidenceSlightly',
  'piifaceConfidenceNone',
] as const satisfies readonly (keyof Strings)[];

export interface PiifaceAnswer {
  emotion: number | null;
  confidence: number | null;
}

export function isComplete(answer: PiifaceAnswer): answer is { emotion: number; confidence: number } {
  return answer.emotion !== null && answer.confidence !== null;
}

function checkIndex(name: string, index: number, count: number): void {
  if (!Number.isInteger(index) || index < 0 || index >= count) {
    throw new RangeError(`piiface ${name} index must be an integer 0..${count - 1}, got ${index}`);
  }
}

/**
 * SPEC §5: the value's digits are the emotion index + 1, then the confidence index + 1 (Fear + Very confident = 31,
 * Sadness + Not confident at all = 65). Both are single digits (7 emotions, 5 levels), so the value is 11..75.
 */
export function piifaceValue(emotion: number, confidence: number): number {
  checkIndex('emotion', emotion, EMOTION_KEYS.length);
  checkIndex('confidence', confidence, CONFIDENCE_KEYS.length);
  return (emotion + 1) * 10 + (confidence + 1);
}
