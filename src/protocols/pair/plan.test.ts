import { describe, expect, it } from 'vitest';
import type { PlaylistStimulus } from '../../contract/playlist.js';
import type { PlanContext } from '../types.js';
import { pairLabels, pairMedia, pairValue, planPair, type PairParams } from './plan.js';

const stim = (patch: Partial<PlaylistStimulus> = {}): PlaylistStimulus => ({
  stimuliId: 7,
  sourceA: 'job/a.png',
  sourceB: 'job/b.png',
  reversed: false,
  ...patch,
});

function ctx(category: number, patch: Partial<PlanContext<PairParams>> = {}): PlanContext<PairParams> {
  return {
    params: { category, displayMs: 1000 },
    canvas: { width: 1280, height: 720 },
    mediaSize: () => ({ width: 320, height: 180 }),
    replay: false,
    ...patch,
  };
}

const summary = (steps: ReturnType<typeof planPair>) =>
  steps.map((s) => ({ label: s.label, media: s.items.map((i) => i.media), end: s.end }));

describe('pair plan', () => {
  it('category 1: both images side by side for the display duration', () => {
    const steps = planPair(stim(), ctx(1));
    expect(summary(steps)).toEqual([{ label: 'AB', media: ['job/a.png', 'job/b.png'], end: { kind: 'duration', ms: 1000 } }]);
    const [a, b] = steps[0]!.items;
    expect(a!.rect.x + a!.rect.width).toBeLessThan(b!.rect.x);
    expect(a!.rect.width).toBe(320); // natural size, not upscaled
  });

  it('category 2: A, a 1000 ms blank, then B, each for the job display duration', () => {
    const steps = planPair(stim(), ctx(2, { params: { category: 2, displayMs: 1500 } }));
    expect(summary(steps)).toEqual([
      { label: 'A', media: ['job/a.png'], end: { kind: 'duration', ms: 1500 } },
      { label: 'gap', media: [], end: { kind: 'duration', ms: 1000 } },
      { label: 'B', media: ['job/b.png'], end: { kind: 'duration', ms: 1500 } },
    ]);
    // Same place for both, centred.
    expect(steps[0]!.items[0]!.rect).toEqual(steps[2]!.items[0]!.rect);
    expect(steps[0]!.items[0]!.rect).toEqual({ x: 480, y: 270, width: 320, height: 180 });
  });

  it('replay shows each image 1000 ms whatever the job duration (one-by-one ends at 3000 ms)', () => {
    const steps = planPair(stim(), ctx(2, { params: { category: 2, displayMs: 2500 }, replay: true }));
    const total = steps.reduce((ms, s) => ms + (s.end.kind === 'duration' ? s.end.ms : 0), 0);
    expect(total).toBe(3000);
  });

  it('category 3: videos side by side until they end; four videos make a top and a bottom pair', () => {
    const v = stim({ sourceA: 'j/a.mp4', sourceB: 'j/b.mp4' });
    expect(summary(planPair(v, ctx(3)))).toEqual([{ label: 'AB', media: ['j/a.mp4', 'j/b.mp4'], end: { kind: 'video-end' } }]);
    const quad = stim({ sourceA: 'j/a.mp4', sourceB: 'j/b.mp4', sourceC: 'j/c.mp4', sourceD: 'j/d.mp4' });
    const steps = planPair(quad, ctx(3));
    expect(summary(steps)[0]!.media).toEqual(['j/a.mp4', 'j/b.mp4', 'j/c.mp4', 'j/d.mp4']);
    const [a, , c] = steps[0]!.items;
    expect(c!.rect.y).toBeGreaterThan(a!.rect.y);
    expect(pairLabels(quad, ctx(3).params)).toEqual({ first: 'topPairOfVideos', last: 'bottomPairOfVideos', replay: 'replayVideos' });
    expect(pairMedia(quad, ctx(1).params)).toEqual(['j/a.mp4', 'j/b.mp4']);
  });

  it('category 4: video A to its end, 1000 ms blank, video B to its end', () => {
    const v = stim({ sourceA: 'j/a.mp4', sourceB: 'j/b.mp4' });
    expect(summary(planPair(v, ctx(4)))).toEqual([
      { label: 'A', media: ['j/a.mp4'], end: { kind: 'video-end' } },
      { label: 'gap', media: [], end: { kind: 'duration', ms: 1000 } },
      { label: 'B', media: ['j/b.mp4'], end: { kind: 'video-end' } },
    ]);
  });

  it('reversed shows B first/left', () => {
    expect(summary(planPair(stim({ reversed: true }), ctx(1)))[0]!.media).toEqual(['job/b.png', 'job/a.png']);
    expect(summary(planPair(stim({ reversed: true }), ctx(2))).map((s) => s.media)).toEqual([['job/b.png'], [], ['job/a.png']]);
  });

  it('keeps the media inside the canvas (the stage sits below the question band)', () => {
    const steps = planPair(stim(), ctx(1, { canvas: { width: 700, height: 300 } }));
    for (const item of steps[0]!.items) {
      expect(item.rect.y).toBeGreaterThanOrEqual(0);
      expect(item.rect.y + item.rect.height).toBeLessThanOrEqual(300);
    }
  });

  it('refuses categories it cannot show', () => {
    for (const category of [0, 5, 6]) expect(() => planPair(stim(), ctx(category))).toThrow(RangeError);
  });

  it('uses the labels of SPEC §2 for each category', () => {
    expect(pairLabels(stim(), ctx(1).params)).toEqual({ first: 'firstImage', last: 'lastImage', replay: 'replayImages' });
    expect(pairLabels(stim(), ctx(2).params)).toEqual({ first: 'firstImage', last: 'lastImage', replay: 'replayImages' });
    expect(pairLabels(stim(), ctx(3).params)).toEqual({ first: 'leftVideos', last: 'rightVideos', replay: 'replayVideos' });
    expect(pairLabels(stim(), ctx(4).params)).toEqual({ first: 'firstVideo', last: 'lastVideo', replay: 'replayVideos' });
  });
});

describe('pair values', () => {
  it('first/left is 0, last/right is 1', () => {
    expect(pairValue('optionimageA')).toBe(0);
    expect(pairValue('optionimageB')).toBe(1);
  });
});
