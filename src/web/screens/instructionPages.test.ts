import { describe, expect, it } from 'vitest';
import { en } from '../i18n/en.js';
import { fr } from '../i18n/fr.js';
import { instructionPages } from './instructionPages.js';

const dsis = {
  instructionMsg: '<p>Rate the impairment.</p><p>A short training with scored examples comes first.</p>',
  instructionPages: ['<p>Page 2</p>'],
};

describe('instruction pages (DSIS with a training)', () => {
  it('before the training: every page, the training announced', () => {
    expect(instructionPages(dsis, 'pending', en)).toEqual([dsis.instructionMsg, '<p>Page 2</p>']);
  });

  it('after the training: the test instructions only, never "training comes first" again', () => {
    const pages = instructionPages(dsis, 'finished', en);
    expect(pages).toEqual([`<p>${en.afterTrainingDefault}</p>`]);
    expect(pages.join('')).not.toContain('training with scored examples');
    expect(instructionPages(dsis, 'finished', fr)).toEqual([`<p>${fr.afterTrainingDefault}</p>`]);
    expect(instructionPages({ ...dsis, afterTrainingMsg: '<p>Now the test.</p>' }, 'finished', en)).toEqual(['<p>Now the test.</p>']);
  });

  it('a job without training shows its pages once', () => {
    expect(instructionPages(dsis, 'none', en)).toEqual([dsis.instructionMsg, '<p>Page 2</p>']);
  });
});
