import type { StimulusCheck } from '../../contract/quality.js';
import type { AnalysedRating, CheckRules, JsonSchema, RatingAdapter } from '../types.js';
import type { LevelScale } from './levels/levels.js';

/**
 * Gold, trapping and attention-check stimuli (docs/quality.md): a stimulus of the study file may carry
 * `check: {kind, answer, tolerance?, position?}`; the participant cannot tell it from the others (the playlist view
 * never shows it). Each protocol says what its `answer` looks like and when a stored answer meets it.
 */

/** The JSON Schema of a stimulus's `check` whose answer has this schema. */
export function checkSchema(answer: JsonSchema): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'answer'],
    properties: {
      kind: { enum: ['gold', 'trap', 'attention'] },
      answer,
      tolerance: { type: 'number', minimum: 0 },
      position: { const: 'random' },
    },
  };
}

/**
 * A rating scale: `answer` is a score on the reporting scale (the one the analysis reports), met within the check's
 * tolerance (gold) or exactly. The scale's levels (stored value → label) and the value → score mapping name a score
 * as the participant's dialog does.
 */
export function scoreChecks<Spec>(range: { minimum: number; maximum: number }, analysis: RatingAdapter<Spec>, scale: LevelScale, scoreOf: (value: number) => number): CheckRules<Spec> {
  const labels = new Map(scale.levels.map((level) => [scoreOf(level.value), level.label]));
  return {
    answer: { type: 'number', ...range },
    scored: true,
    passed: (check, answer) => Math.abs(analysis.vote(answer).score - Number(check.answer)) <= (check.tolerance ?? 0) + 1e-9,
    answerOf: (answer) => analysis.vote(answer).score,
    labelOf: (score) => labels.get(Number(score)),
  };
}

/** A choice among named options: the option the answer chose equals the check's. */
export function choiceChecks<Spec>(options: readonly string[], chosen: (answer: AnalysedRating<Spec>) => string): CheckRules<Spec> {
  return { answer: { enum: [...options] }, passed: (check: StimulusCheck, answer) => chosen(answer) === check.answer, answerOf: chosen };
}
