import { describe, expect, it } from 'vitest';
import { en } from '../../web/i18n/en.js';
import { fr } from '../../web/i18n/fr.js';
import { jobOf, planContext, stimulusOf } from '../common/levels/testSupport.js';
import triplet from './web.js';

const params = (category: number, displayMs?: number) => triplet.params(jobOf({ subjectiveProtocol: 'triplet', category_id: category, displayMs }));
const three = stimulusOf({ sourceA: 'j/a.jpg', sourceB: 'j/b.jpg', sourceC: 'j/c.jpg' });

describe('triplet plan', () => {
  it('categoryTest 1: A left, B in the middle, C right, in one row, for the display time', () => {
    const steps = triplet.plan(three, planContext(params(1, 600)));
    expect(steps).toHaveLength(1);
    expect(steps[0]!.end).toEqual({ kind: 'duration', ms: 600 });
    const [a, b, c] = steps[0]!.items;
    expect([a, b, c].map((i) => i!.media)).toEqual(['j/a.jpg', 'j/b.jpg', 'j/c.jpg']);
    expect(new Set([a, b, c].map((i) => i!.rect.y)).size).toBe(1);
    expect(b!.rect.x).toBeGreaterThanOrEqual(a!.rect.x + a!.rect.width);
    expect(c!.rect.x).toBeGreaterThanOrEqual(b!.rect.x + b!.rect.width);
    // Centred: the middle one sits in the middle of the canvas.
    expect(b!.rect.x + b!.rect.width / 2).toBe(640);
  });

  it('reversed swaps the sides and keeps B in the middle; replay 1000 ms; videos until they end', () => {
    expect(triplet.plan({ ...three, reversed: true }, planContext(params(1)))[0]!.items.map((i) => i.media)).toEqual(['j/c.jpg', 'j/b.jpg', 'j/a.jpg']);
    expect(triplet.plan(three, planContext(params(1, 3000), { replay: true }))[0]!.end).toEqual({ kind: 'duration', ms: 1000 });
    expect(triplet.plan(three, planContext(params(3)))[0]!.end).toEqual({ kind: 'video-end' });
  });

  it('needs three sources and a row layout (1 or 3)', () => {
    expect(() => triplet.mediaOf({ ...three, sourceC: undefined }, params(1))).toThrow(RangeError);
    expect(triplet.categories).toEqual([1, 3]);
    for (const category of [2, 4, 5]) expect(() => triplet.plan(three, planContext(params(category)))).toThrow(RangeError);
  });
});

describe('triplet labels and values', () => {
  it("videos: 'Left videos' / 'Right videos'; images: 'Left image' / 'Right image'", () => {
    const text = (category: number, strings = en) => Object.values(params(category).labels ?? {}).map((k: keyof typeof en) => strings[k]);
    expect(text(3)).toEqual(['Left videos', 'Right videos', 'Replay Videos']);
    expect(text(1)).toEqual(['Left image', 'Right image', 'Replay Images']);
    expect(text(1, fr)).toEqual(['Image de gauche', 'Image de droite', 'Revoir les images']);
    expect(params(5).labels).toBeNull();
  });

  it('left 0, right 1', () => {
    expect(triplet.value('optionimageA', three)).toBe(0);
    expect(triplet.value('optionimageB', three)).toBe(1);
  });
});
