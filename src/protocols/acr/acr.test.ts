import { describe, expect, it } from 'vitest';
import { en } from '../../web/i18n/en.js';
import { fr } from '../../web/i18n/fr.js';
import { planContext, jobOf, stimulusOf } from '../common/levels/testSupport.js';
import acr from './web.js';
import { acrScale, type AcrParams } from './scale.js';

const params = (patch: Parameters<typeof jobOf>[0] = {}): AcrParams => acr.params(jobOf(patch));

describe('ACR parameters and value mapping', () => {
  it('stores the level index 0-4, Excellent first (SPEC §5, §9)', () => {
    const { levels } = acrScale(false);
    expect(levels.map((l) => [en[l.label], l.value])).toEqual([
      ['Excellent', 0],
      ['Good', 1],
      ['Fair', 2],
      ['Poor', 3],
      ['Bad', 4],
    ]);
    expect(levels.map((l) => fr[l.label])).toEqual(['Excellente', 'Bonne', 'Assez bonne', 'Médiocre', 'Mauvaise']);
    for (const level of levels) expect(acr.value(level.value, stimulusOf())).toBe(level.value);
  });

  it('reads the coloured mode and the display time from the job', () => {
    expect(params({ coloredScale: true }).scale.colored).toBe(true);
    expect(params().scale.colored).toBe(false);
    expect(params().displayMs).toBe(1000);
    expect(params({ displayMs: 2500, category_id: 5 })).toMatchObject({ displayMs: 2500, category: 5 });
    expect(acrScale(true).levels.map((l) => l.color)).toEqual(['green', 'green', 'orange', 'red', 'red']);
  });
});

describe('ACR plan', () => {
  it('images (categoryTest 1 and 2): one centred image that ends on a click or after the display time', () => {
    for (const category of [1, 2]) {
      const steps = acr.plan(stimulusOf({ source: 'job/a.jpg' }), planContext(params({ category_id: category, displayMs: 700 })));
      expect(steps).toEqual([{ label: 'S', items: [{ media: 'job/a.jpg', rect: { x: 480, y: 270, width: 320, height: 180 } }], end: { kind: 'click', maxMs: 700 } }]);
    }
  });

  it('categoryTest 5: one video until it ends', () => {
    const steps = acr.plan(stimulusOf({ source: 'job/v.mp4' }), planContext(params({ category_id: 5 })));
    expect(steps.map((s) => [s.items.map((i) => i.media), s.end])).toEqual([[['job/v.mp4'], { kind: 'video-end' }]]);
  });

  it('keeps the image inside the canvas and accepts a study written with sourceA', () => {
    const ctx = planContext(params(), { canvas: { width: 600, height: 300 } });
    const [step] = acr.plan(stimulusOf({ sourceA: 'job/a.jpg' }), ctx);
    expect(step!.items[0]!.rect.y).toBeGreaterThanOrEqual(0);
    expect(step!.items[0]!.rect.y + step!.items[0]!.rect.height).toBeLessThanOrEqual(300);
    expect(acr.mediaOf(stimulusOf({ sourceA: 'job/a.jpg' }), params())).toEqual(['job/a.jpg']);
  });

  it('shows layouts 1, 2 and 5 only; other categories and a stimulus without a source are refused', () => {
    expect(acr.categories).toEqual([1, 2, 5]);
    for (const category of [0, 3, 4, 6]) {
      expect(() => acr.plan(stimulusOf({ source: 'a.jpg' }), planContext(params({ category_id: category })))).toThrow(RangeError);
    }
    expect(() => acr.mediaOf(stimulusOf(), params())).toThrow(RangeError);
  });
});
