import { describe, expect, it } from 'vitest';
import { en } from '../../web/i18n/en.js';
import { fr } from '../../web/i18n/fr.js';
import { CONFIDENCE_KEYS, EMOTION_KEYS, isComplete, piifaceValue } from './answers.js';
import { expectedEmotionOfType } from './stimulusRules.js';

describe('piiface value encoding (SPEC §5)', () => {
  it('writes emotion index + 1 then confidence index + 1 as the digits of the value', () => {
    expect(piifaceValue(2, 4)).toBe(35);
    expect(piifaceValue(0, 0)).toBe(11);
    expect(piifaceValue(6, 4)).toBe(75);
    expect(piifaceValue(5, 1)).toBe(62);
  });

  it('gives every (emotion, confidence) pair its own value, decodable digit by digit', () => {
    const seen = new Set<number>();
    for (let e = 0; e < EMOTION_KEYS.length; e++) {
      for (let c = 0; c < CONFIDENCE_KEYS.length; c++) {
        const value = piifaceValue(e, c);
        expect([Math.floor(value / 10) - 1, (value % 10) - 1]).toEqual([e, c]);
        seen.add(value);
      }
    }
    expect(seen.size).toBe(35);
  });

  it('refuses indexes outside the scales', () => {
    expect(() => piifaceValue(7, 0)).toThrow(RangeError);
    expect(() => piifaceValue(0, 5)).toThrow(RangeError);
    expect(() => piifaceValue(-1, 0)).toThrow(RangeError);
    expect(() => piifaceValue(1.5, 0)).toThrow(RangeError);
  });

  it('needs both answers', () => {
    expect(isComplete({ emotion: 0, confidence: 0 })).toBe(true);
    expect(isComplete({ emotion: 3, confidence: null })).toBe(false);
    expect(isComplete({ emotion: null, confidence: 2 })).toBe(false);
  });
});

describe('training expected emotion (fourth segment of the type)', () => {
  it('reads the fourth / segment as the 0-based emotion index', () => {
    expect(expectedEmotionOfType('piiface/train/ada/3')).toBe(3);
    expect(expectedEmotionOfType('piiface/train/cleo/0')).toBe(0);
    expect(expectedEmotionOfType('piiface/train/ben/6')).toBe(6);
    expect(expectedEmotionOfType('piiface/train/ben/5/extra')).toBe(5);
  });

  it('gives null when the type has no valid index there', () => {
    expect(expectedEmotionOfType('piiface/train/ada')).toBeNull();
    expect(expectedEmotionOfType('3')).toBeNull();
    expect(expectedEmotionOfType('piiface/train/ada/happy')).toBeNull();
    expect(expectedEmotionOfType('piiface/train/ada/7')).toBeNull();
    expect(expectedEmotionOfType('piiface/train/ada/-1')).toBeNull();
    expect(expectedEmotionOfType('piiface/train/ada/')).toBeNull();
  });
});

describe('piiface labels', () => {
  it('are the SPEC texts in English, and translated in French', () => {
    expect(EMOTION_KEYS.map((k) => en[k])).toEqual(['Anger', 'Disgust', 'Fear', 'Happiness', 'Neutral', 'Sadness', 'Surprise']);
    expect(CONFIDENCE_KEYS.map((k) => en[k])).toEqual([
      'Very confident',
      'Fairly confident',
      'Somewhat confident',
      'Slightly confident',
      'Not confident at all',
    ]);
    expect(en.piifaceNextImage).toBe('Next image');
    expect(en.piifaceImageAlt).toBe('image of a person expressing an emotion');
    for (const k of [...EMOTION_KEYS, ...CONFIDENCE_KEYS, 'piifaceNextImage', 'piifaceImageAlt'] as const) {
      expect(fr[k]).toBeTruthy();
    }
    expect(fr.piifaceNextImage).not.toBe(en.piifaceNextImage);
  });
});
