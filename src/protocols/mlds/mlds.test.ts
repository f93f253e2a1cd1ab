import { describe, expect, it } from 'vitest';
import { en } from '../../web/i18n/en.js';
import { jobOf, planContext, stimulusOf } from '../common/levels/testSupport.js';
import mlds from './web.js';

const params = (category: number, displayMs?: number) =>
  mlds.params(jobOf({ subjectiveProtocol: 'maximum_likelihood_difference_scaling', category_id: category, displayMs }));
const quad = stimulusOf({ sourceA: 'j/a.jpg', sourceB: 'j/b.jpg', sourceC: 'j/c.jpg', sourceD: 'j/d.jpg' });

describe('MLDS plan', () => {
  it('categoryTest 1: the top pair (A, B) over the bottom pair (C, D), all four for the display time', () => {
    const [step, ...rest] = mlds.plan(quad, planContext(params(1, 900)));
    expect(rest).toEqual([]);
    expect(step!.end).toEqual({ kind: 'duration', ms: 900 });
    const [a, b, c, d] = step!.items;
    expect([a, b, c, d].map((i) => i!.media)).toEqual(['j/a.jpg', 'j/b.jpg', 'j/c.jpg', 'j/d.jpg']);
    expect(a!.rect.y).toBe(b!.rect.y);
    expect(c!.rect.y).toBe(d!.rect.y);
    expect(c!.rect.y).toBeGreaterThanOrEqual(a!.rect.y + a!.rect.height);
    expect(b!.rect.x).toBeGreaterThanOrEqual(a!.rect.x + a!.rect.width);
    expect(c!.rect.x).toBe(a!.rect.x);
  });

  it('replay shows the images 1000 ms; categoryTest 3 plays the four videos to their end', () => {
    expect(mlds.plan(quad, planContext(params(1, 2500), { replay: true }))[0]!.end).toEqual({ kind: 'duration', ms: 1000 });
    expect(mlds.plan(quad, planContext(params(3)))[0]!.end).toEqual({ kind: 'video-end' });
  });

  it('reversed puts (C, D) on top', () => {
    expect(mlds.plan({ ...quad, reversed: true }, planContext(params(1)))[0]!.items.map((i) => i.media)).toEqual(['j/c.jpg', 'j/d.jpg', 'j/a.jpg', 'j/b.jpg']);
    expect(mlds.mediaOf({ ...quad, reversed: true }, params(1))).toEqual(['j/c.jpg', 'j/d.jpg', 'j/a.jpg', 'j/b.jpg']);
  });

  it('needs four sources and a quadruplet layout (1 or 3)', () => {
    expect(() => mlds.mediaOf({ ...quad, sourceD: undefined }, params(1))).toThrow(RangeError);
    expect(mlds.categories).toEqual([1, 3]);
    for (const category of [2, 4, 5]) expect(() => mlds.plan(quad, planContext(params(category)))).toThrow(RangeError);
  });
});

describe('MLDS labels and values', () => {
  it("images: 'Top pair of images' / 'Bottom pair of images' / 'Replay Images'; videos: the SPEC video labels", () => {
    const text = (category: number) => Object.values(params(category).labels ?? {}).map((k: keyof typeof en) => en[k]);
    expect(text(1)).toEqual(['Top pair of images', 'Bottom pair of images', 'Replay Images']);
    expect(text(3)).toEqual(['Top pair of videos', 'Bottom pair of videos', 'Replay Videos']);
    expect(params(2).labels).toBeNull();
  });

  it('top pair 0, bottom pair 1', () => {
    expect(mlds.value('optionimageA', quad)).toBe(0);
    expect(mlds.value('optionimageB', quad)).toBe(1);
  });
});
