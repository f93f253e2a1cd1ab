import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { StudyFile } from '../../contract/study.js';
import { en } from '../../web/i18n/en.js';
import { fr } from '../../web/i18n/fr.js';
import { levelOf } from '../common/levels/levels.js';
import { jobOf, planContext, stimulusOf } from '../common/levels/testSupport.js';
import dsis from './web.js';
import { IMPAIRMENT_SCALE } from './scale.js';

const params = (category: number, displayMs?: number) => dsis.params(jobOf({ subjectiveProtocol: 'double_stimulus_impairment_scale', category_id: category, displayMs }));
const pair = stimulusOf({ sourceA: 'job/ref.jpg', sourceB: 'job/imp.jpg' });
const summary = (steps: ReturnType<typeof dsis.plan>) => steps.map((s) => ({ label: s.label, media: s.items.map((i) => i.media), end: s.end }));

describe('DSIS value mapping', () => {
  it('sends the ITU grade: Imperceptible 5 ... Very annoying 1', () => {
    expect(IMPAIRMENT_SCALE.levels.map((l) => [en[l.label], l.value])).toEqual([
      ['Imperceptible', 5],
      ['Perceptible but not annoying', 4],
      ['Slightly annoying', 3],
      ['Annoying', 2],
      ['Very annoying', 1],
    ]);
    expect(IMPAIRMENT_SCALE.levels.map((l) => fr[l.label])).toEqual(['Imperceptible', 'Perceptible mais non gênante', 'Légèrement gênante', 'Gênante', 'Très gênante']);
    expect(dsis.value(3, pair)).toBe(3);
  });

  it('every training reference of the DSIS studies is a grade of the scale', () => {
    for (const file of ['studies/demo-dsis.json', 'tests/e2e/studies/e2e-dsis.json']) {
      const study = JSON.parse(readFileSync(file, 'utf8')) as StudyFile;
      const references = study.playlists.flatMap((p) => (p.training ?? []).map((s) => (s as { value?: number }).value));
      expect(references.length, file).toBeGreaterThan(0);
      for (const value of references) expect(levelOf(IMPAIRMENT_SCALE, value), `${file}: ${value}`).toBeDefined();
    }
  });
});

describe('DSIS plan', () => {
  it('categoryTest 2: the reference, a 1000 ms blank, then the impaired image, each for the display time', () => {
    expect(summary(dsis.plan(pair, planContext(params(2, 800))))).toEqual([
      { label: 'A', media: ['job/ref.jpg'], end: { kind: 'duration', ms: 800 } },
      { label: 'gap', media: [], end: { kind: 'duration', ms: 1000 } },
      { label: 'B', media: ['job/imp.jpg'], end: { kind: 'duration', ms: 800 } },
    ]);
  });

  it('the reference always comes first (left), even when the stimulus says reversed', () => {
    const reversed = { ...pair, reversed: true };
    expect(summary(dsis.plan(reversed, planContext(params(2)))).map((s) => s.media)).toEqual([['job/ref.jpg'], [], ['job/imp.jpg']]);
    const [step] = dsis.plan(reversed, planContext(params(1)));
    expect(step!.items.map((i) => i.media)).toEqual(['job/ref.jpg', 'job/imp.jpg']);
    expect(step!.items[0]!.rect.x).toBeLessThan(step!.items[1]!.rect.x);
    expect(dsis.mediaOf(reversed, params(1))).toEqual(['job/ref.jpg', 'job/imp.jpg']);
  });

  it('videos: side by side (3) or one after another (4), until they end', () => {
    const videos = stimulusOf({ sourceA: 'j/r.mp4', sourceB: 'j/i.mp4', sourceC: 'j/x.mp4', sourceD: 'j/y.mp4' });
    expect(summary(dsis.plan(videos, planContext(params(3))))).toEqual([{ label: 'AB', media: ['j/r.mp4', 'j/i.mp4'], end: { kind: 'video-end' } }]);
    expect(summary(dsis.plan(videos, planContext(params(4)))).map((s) => s.end.kind)).toEqual(['video-end', 'duration', 'video-end']);
  });

  it('shows layouts 1-4 only', () => {
    expect(dsis.categories).toEqual([1, 2, 3, 4]);
    for (const category of [0, 5]) expect(() => dsis.plan(pair, planContext(params(category)))).toThrow(RangeError);
  });
});
