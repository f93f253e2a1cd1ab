import { describe, expect, it } from 'vitest';
import type { BubblePlaylistStimulus } from '../../contract/playlist.js';
import { parseBubbleQuery } from './bubbleQuery.js';
import { bubbleLayout } from './geometry.js';
import { DEFAULT_DISPLAY_MS, imageDisplayMs, itemOf, layoutOf, playPlan, playSteps, SINGLE_STIMULUS_DISPLAY_MS } from './presentation.js';

const media = (source: string, extra: Partial<BubblePlaylistStimulus['sourceA']> = {}) => ({
  stimuli_id: 7,
  source,
  width: 320,
  height: 180,
  blur: 6,
  radius: 30,
  golden: false,
  ...extra,
});
const pair: BubblePlaylistStimulus = { stimuli_id: 7, sourceA: media('job/a.png'), sourceB: media('job/b.png') };
const canvas = { x: 0, y: 0, width: 1280, height: 720 };
const images = () => 'image' as const;

describe('bubble presentation (SPEC §2, §9)', () => {
  it('image display: 7000 ms single stimulus, else dd, else the job extension, else 10000 ms', () => {
    expect(imageDisplayMs(parseBubbleQuery('?ss=1&dd=3000'), 500)).toBe(SINGLE_STIMULUS_DISPLAY_MS);
    expect(imageDisplayMs(parseBubbleQuery('?dd=3000'), 500)).toBe(3000);
    expect(imageDisplayMs(parseBubbleQuery(''), 500)).toBe(500);
    expect(imageDisplayMs(parseBubbleQuery(''), undefined)).toBe(DEFAULT_DISPLAY_MS);
  });

  it('pair: A waiting for the click, A, the pause (pt), B; images end after the display time, videos at their end', () => {
    const query = parseBubbleQuery('?dd=2500&pt=800');
    const plan = playPlan(pair, query, (s) => (s.endsWith('b.png') ? 'video' : 'image'));
    const items = plan.media.map((m) => itemOf(m, layoutOf(plan, m, canvas), query));
    const steps = playSteps(plan, items, { displayMs: 2500, pauseMs: 800, freeTask: false });
    expect(steps.map((s) => [s.label, s.items[0]?.media ?? null, s.end])).toEqual([
      ['ready', 'job/a.png', { kind: 'click' }],
      ['A', 'job/a.png', { kind: 'duration', ms: 2500 }],
      ['pause', null, { kind: 'duration', ms: 800 }],
      ['B', 'job/b.png', { kind: 'video-end' }],
    ]);
    expect(steps[0]!.items[0]!.paused).toBe(true);
    expect(steps[1]!.items[0]!.paused).toBeUndefined();
  });

  it('single stimulus plays A only; free task ends with a pause; a zero pause is left out', () => {
    const single = playPlan(pair, parseBubbleQuery('?ss=1'), images);
    expect(single.media.map((m) => m.slot)).toEqual(['mediaA']);
    const views = single.media.map((m) => itemOf(m, layoutOf(single, m, canvas), parseBubbleQuery('')));
    expect(playSteps(single, views, { displayMs: 7000, pauseMs: 1000, freeTask: true }).map((s) => s.label)).toEqual(['ready', 'A', 'pause']);
    const both = playPlan(pair, parseBubbleQuery(''), images);
    const bothViews = both.media.map((m) => itemOf(m, layoutOf(both, m, canvas), parseBubbleQuery('')));
    expect(playSteps(both, bothViews, { displayMs: 1000, pauseMs: 0, freeTask: false }).map((s) => s.label)).toEqual(['ready', 'A', 'B']);
  });

  it('blur bl (else the stimulus blur) and window radius bd / 2 (else the stimulus radius), in CSS px at the display scale', () => {
    const plan = playPlan(pair, parseBubbleQuery(''), images);
    const layout = layoutOf(plan, plan.media[0]!, canvas);
    expect(itemOf(plan.media[0]!, layout, parseBubbleQuery(''))).toEqual({ media: 'job/a.png', rect: { x: 480, y: 270, width: 320, height: 180 }, bubble: { sigma: 6, radius: 30 } });
    expect(itemOf(plan.media[0]!, layout, parseBubbleQuery('?bl=10&bd=100')).bubble).toEqual({ sigma: 10, radius: 50 });
    const halfScale = bubbleLayout({ x: 0, y: 0, width: 200, height: 112.5 }, { width: 320, height: 180 });
    expect(itemOf(plan.media[0]!, halfScale, parseBubbleQuery('')).bubble).toEqual({ sigma: 3, radius: 15 });
  });

  it('in device pixels the blur and the window are media pixels: at 125 % σ 6 px of media is 4.8 CSS px (6 device px)', () => {
    const plan = playPlan(pair, parseBubbleQuery(''), images);
    const item = itemOf(plan.media[0]!, layoutOf(plan, plan.media[0]!, canvas, { scaling: 'integer', ratio: 1.25 }), parseBubbleQuery(''));
    expect(item.bubble.sigma).toBeCloseTo(4.8, 12);
    expect(item.bubble.radius).toBe(24);
    expect(item.pixels).toMatchObject({ scaling: 'integer', scale: 1, filter: 'nearest', fits: true });
  });

  it('w and h set the drawn size; the area is made for the larger media of the pair', () => {
    const uneven: BubblePlaylistStimulus = { stimuli_id: 1, sourceA: media('a', { width: 400, height: 200 }), sourceB: media('b', { width: 200, height: 100 }) };
    expect(playPlan(uneven, parseBubbleQuery(''), images).areaSize).toEqual({ width: 400, height: 200 });
    const forced = playPlan(uneven, parseBubbleQuery('?w=640&h=360'), images);
    expect(forced.media.map((m) => m.nominal)).toEqual([
      { width: 640, height: 360 },
      { width: 640, height: 360 },
    ]);
  });
});
