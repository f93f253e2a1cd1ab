/**
 * Piiface emotion recognition: the answer encodes (emotion + 1)·10 + (confidence + 1). Confusion matrix
 * (expected × answered emotion) over the trials whose expected emotion is known, accuracy per expected
 * emotion, per confidence level (calibration) and per stimulus.
 */
import { consumeVotes, type VoteCounts } from '../collect.js';
import type { PiifaceVote, VoteSource } from '../types.js';

export const EMOTIONS = ['Anger', 'Disgust', 'Fear', 'Happiness', 'Neutral', 'Sadness', 'Surprise'] as const;
export const CONFIDENCE_LEVELS = ['Very confident', 'Fairly confident', 'Somewhat confident', 'Slightly confident', 'Not confident at all'] as const;

export interface AccuracyRow {
  answered: number;
  correct: number;
  /** correct / answered over trials with a known expected emotion; null when there are none. */
  accuracy: number | null;
}

export interface PiifaceResult {
  emotions: readonly string[];
  confidenceLevels: readonly string[];
  /** confusion[expected][answered]: trials with a known expected emotion. */
  confusion: number[][];
  perEmotion: (AccuracyRow & { emotion: string })[];
  /** All answers per confidence level; `answered`/`correct` count those with a known expected emotion. */
  perConfidence: (AccuracyRow & { confidence: string; answers: number })[];
  perStimulus: (AccuracyRow & { stimulus: string; expected: string | null; answers: number })[];
  overall: AccuracyRow;
  /** Answers per answered emotion, known expected emotion or not. */
  answerCounts: number[];
  observers: number;
  counts: VoteCounts;
}

/** Splits a two-digit piiface answer; null when it is not one. */
export function decodeAnswer(answer: number): { emotion: number; confidence: number } | null {
  if (!Number.isInteger(answer)) return null;
  const emotion = Math.floor(answer / 10) - 1;
  const confidence = (answer % 10) - 1;
  return emotion >= 0 && emotion < EMOTIONS.length && confidence >= 0 && confidence < CONFIDENCE_LEVELS.length ? { emotion, confidence } : null;
}

const ratio = (correct: number, answered: number) => (answered > 0 ? correct / answered : null);

export async function analysePiiface(source: VoteSource<PiifaceVote>, excludeFlagged: boolean): Promise<PiifaceResult> {
  const confusion = EMOTIONS.map(() => EMOTIONS.map(() => 0));
  const confidence = CONFIDENCE_LEVELS.map(() => ({ answers: 0, answered: 0, correct: 0 }));
  const answerCounts = EMOTIONS.map(() => 0);
  const stimuli = new Map<string, { expected: number | null; answers: number; answered: number; correct: number }>();
  const observers = new Set<string>();

  const counts = await consumeVotes(source, excludeFlagged, (vote) => {
    const decoded = decodeAnswer(vote.answer);
    const expected = vote.expectedEmotion;
    if (!decoded || (expected !== null && !(Number.isInteger(expected) && expected >= 0 && expected < EMOTIONS.length))) return false;
    answerCounts[decoded.emotion]++;
    observers.add(vote.observer);
    const level = confidence[decoded.confidence];
    level.answers++;
    const stimulus = stimuli.get(vote.stimulus) ?? { expected, answers: 0, answered: 0, correct: 0 };
    stimulus.answers++;
    if (expected !== null) {
      const correct = decoded.emotion === expected ? 1 : 0;
      confusion[expected][decoded.emotion]++;
      level.answered++;
      level.correct += correct;
      stimulus.answered++;
      stimulus.correct += correct;
    }
    stimuli.set(vote.stimulus, stimulus);
    return true;
  });

  const perEmotion = EMOTIONS.map((emotion, e) => {
    const answered = confusion[e].reduce((a, b) => a + b, 0);
    return { emotion, answered, correct: confusion[e][e], accuracy: ratio(confusion[e][e], answered) };
  });
  const answered = perEmotion.reduce((a, r) => a + r.answered, 0);
  const correct = perEmotion.reduce((a, r) => a + r.correct, 0);
  return {
    emotions: EMOTIONS,
    confidenceLevels: CONFIDENCE_LEVELS,
    confusion,
    perEmotion,
    perConfidence: CONFIDENCE_LEVELS.map((label, c) => ({ confidence: label, ...confidence[c], accuracy: ratio(confidence[c].correct, confidence[c].answered) })),
    perStimulus: [...stimuli].map(([stimulus, s]) => ({
      stimulus,
      expected: s.expected === null ? null : EMOTIONS[s.expected],
      answers: s.answers,
      answered: s.answered,
      correct: s.correct,
      accuracy: ratio(s.correct, s.answered),
    })),
    overall: { answered, correct, accuracy: ratio(correct, answered) },
    answerCounts,
    observers: observers.size,
    counts,
  };
}
