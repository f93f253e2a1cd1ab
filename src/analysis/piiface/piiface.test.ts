import { describe, expect, it } from 'vitest';
import type { PiifaceVote } from '../types.js';
import { analysePiiface, decodeAnswer } from './piiface.js';

describe('piiface', () => {
  it('decodes (emotion + 1)·10 + (confidence + 1) and refuses other numbers', () => {
    expect(decodeAnswer(42)).toEqual({ emotion: 3, confidence: 1 });
    expect(decodeAnswer(11)).toEqual({ emotion: 0, confidence: 0 });
    expect(decodeAnswer(75)).toEqual({ emotion: 6, confidence: 4 });
    for (const bad of [0, 10, 16, 81, 42.5, -11]) expect(decodeAnswer(bad)).toBeNull();
  });

  it('builds the confusion matrix and the accuracies by emotion, confidence and stimulus', async () => {
    const votes: PiifaceVote[] = [
      { observer: 'a', stimulus: 'f1', expectedEmotion: 3, answer: 41 }, // Happiness, very confident: right
      { observer: 'b', stimulus: 'f1', expectedEmotion: 3, answer: 52 }, // Neutral, fairly: wrong
      { observer: 'a', stimulus: 'f2', expectedEmotion: 0, answer: 11 }, // Anger, very: right
      { observer: 'b', stimulus: 'f2', expectedEmotion: 0, answer: 21 }, // Disgust, very: wrong
      { observer: 'c', stimulus: 'f3', expectedEmotion: null, answer: 55 }, // unknown truth: counted, not scored
      { observer: 'c', stimulus: 'f3', expectedEmotion: null, answer: 99 }, // invalid: skipped
    ];
    const r = await analysePiiface(votes, false);
    expect(r.confusion[3][3]).toBe(1);
    expect(r.confusion[3][4]).toBe(1);
    expect(r.confusion[0][0]).toBe(1);
    expect(r.confusion[0][1]).toBe(1);
    expect(r.confusion.flat().reduce((a, b) => a + b, 0)).toBe(4);
    expect(r.overall).toEqual({ answered: 4, correct: 2, accuracy: 0.5 });
    expect(r.perEmotion[3]).toEqual({ emotion: 'Happiness', answered: 2, correct: 1, accuracy: 0.5 });
    expect(r.perEmotion[2].accuracy).toBeNull();
    expect(r.perConfidence[0]).toEqual({ confidence: 'Very confident', answers: 3, answered: 3, correct: 2, accuracy: 2 / 3 });
    expect(r.perConfidence[4]).toEqual({ confidence: 'Not confident at all', answers: 1, answered: 0, correct: 0, accuracy: null });
    expect(r.perStimulus.find((s) => s.stimulus === 'f3')).toMatchObject({ expected: null, answers: 1, answered: 0 });
    expect(r.counts.skipped).toBe(1);
    expect(r.observers).toBe(3);
  });
});
