import { describe, expect, it } from 'vitest';
import { OBJECT_DEFAULTS } from '../../contract/objects.js';
import type { PlaylistStimulus } from '../../contract/playlist.js';
import { en } from '../../web/i18n/en.js';
import { fr } from '../../web/i18n/fr.js';
import { IMPAIRMENT_SCALE, planDsis } from '../dsis/scale.js';
import { answerSlot } from '../../web/participant/voteModalPosition.js';
import type { Canvas } from '../../web/stage/layouts.js';
import type { PresentationStep, Rect } from '../../web/stage/types.js';
import { CHOICE_DIALOG, DIALOG_GAP_PX, LEVELS_DIALOG, type DialogRoom } from './objects.js';
import { pairLabels, planPair, type PairParams } from '../pair/plan.js';
import type { PlanContext } from '../types.js';
import { planSingle } from './levels/singleStimulus.js';

/** 3D objects in the staged protocols' pure plans (docs/3d-objects.md). */

const pair = (patch: Partial<PlaylistStimulus> = {}): PlaylistStimulus => ({ stimuliId: 3, sourceA: 'job/ref.glb', sourceB: 'job/low.glb', reversed: false, ...patch });

function ctx(category: number, objects?: PairParams['objects']): PlanContext<PairParams> {
  return {
    params: { category, displayMs: 1000, ...(objects ? { objects } : {}) },
    canvas: { width: 1280, height: 720 },
    mediaSize: () => ({ width: 1024, height: 1024 }),
    replay: false,
  };
}

describe('3D objects in the plans', () => {
  it('ACR: one object turns once (a clip-like step), with the defaults under the job and stimulus keys', () => {
    const steps = planSingle({ stimuliId: 1, source: 'job/a.ply', reversed: false, object: { pointSize: 4 } }, ctx(1, { degreesPerSecond: 90 }));
    expect(steps).toHaveLength(1);
    expect(steps[0]!.end).toEqual({ kind: 'video-end' });
    expect(steps[0]!.items[0]!.object).toEqual({ ...OBJECT_DEFAULTS, degreesPerSecond: 90, pointSize: 4 });
    // Drawn as a square fitted to the window like a 1024 px image.
    expect(steps[0]!.items[0]!.rect.width).toBe(steps[0]!.items[0]!.rect.height);
  });

  it('ACR inspect: the object stays up until the answer', () => {
    expect(planSingle({ stimuliId: 1, source: 'job/a.glb', reversed: false }, ctx(2, { mode: 'inspect' }))[0]!.end).toEqual({ kind: 'hold' });
  });

  it('pair side by side: one step, both objects with the same options (one camera), held in inspect mode', () => {
    const steps = planPair(pair(), ctx(1, { mode: 'inspect', minInspectMs: 3000 }));
    expect(steps.map((s) => s.label)).toEqual(['AB']);
    expect(steps[0]!.end).toEqual({ kind: 'hold' });
    const [a, b] = steps[0]!.items;
    expect(a!.object).toEqual(b!.object);
    expect(a!.object!.minInspectMs).toBe(3000);
    expect(a!.rect.x + a!.rect.width).toBeLessThan(b!.rect.x);
  });

  it('pair one after another: a turntable runs its course each; in inspect mode A lasts its minimum inspection, B until the answer', () => {
    expect(planPair(pair(), ctx(2)).map((s) => [s.label, s.end])).toEqual([
      ['A', { kind: 'video-end' }],
      ['gap', { kind: 'duration', ms: 1000 }],
      ['B', { kind: 'video-end' }],
    ]);
    expect(planPair(pair({ reversed: true }), ctx(2, { mode: 'inspect', minInspectMs: 2500 })).map((s) => [s.label, s.items.map((i) => i.media), s.end])).toEqual([
      ['A', ['job/low.glb'], { kind: 'duration', ms: 2500 }],
      ['gap', [], { kind: 'duration', ms: 1000 }],
      ['B', ['job/ref.glb'], { kind: 'hold' }],
    ]);
  });

  it('DSIS: the reference object, then the impaired one, each turning', () => {
    const steps = planDsis(pair({ reversed: true }), { ...ctx(2), params: { ...ctx(2).params, scale: { colored: false, levels: [] } } });
    expect(steps.map((s) => [s.label, s.items.map((i) => i.media), s.end.kind])).toEqual([
      ['A', ['job/ref.glb'], 'video-end'],
      ['gap', [], 'duration'],
      ['B', ['job/low.glb'], 'video-end'],
    ]);
  });

  it('the pair dialog says object: left / right side by side, first / last one after another, in English and French', () => {
    const shown = (category: number, strings: typeof en) => {
      const labels = pairLabels(pair(), ctx(category).params);
      return [strings[labels.first], strings[labels.last], strings[labels.replay]];
    };
    expect(shown(1, en)).toEqual(['Left object', 'Right object', 'Replay objects']);
    expect(shown(1, fr)).toEqual(['Objet de gauche', 'Objet de droite', 'Revoir les objets']);
    expect(shown(2, en)).toEqual(['First object', 'Last object', 'Replay objects']);
    expect(shown(2, fr)).toEqual(['Premier objet', 'Dernier objet', 'Revoir les objets']);
    // Images keep their labels (SPEC §2: 'First Image' side by side too).
    expect(en[pairLabels(pair({ sourceA: 'a.png', sourceB: 'b.png' }), ctx(1).params).first]).toBe('First Image');
  });
});

/**
 * Objects under inspection stay up while the dialog is open: every plan that holds them leaves the dialog's room
 * beside or below them, and the page's slot there holds the room without touching an object (issue 35). The e2e
 * test (objects-3d.spec.ts) measures the real dialog against the drawn objects.
 */
describe('room for the dialog beside objects under inspection', () => {
  const inspect = { mode: 'inspect' as const };
  const single = { stimuliId: 1, source: 'job/a.glb', reversed: false };
  const overlaps = (a: Rect, b: Rect) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  // The stage below the 80 px question band (categoryTest 1 and 2) of a 1280×720, 1366×768 and 1920×1080 window.
  const stages = [
    { width: 1280, height: 640 },
    { width: 1366, height: 688 },
    { width: 1920, height: 1000 },
  ];
  const plans: Array<[string, (canvas: Canvas) => PresentationStep[], DialogRoom]> = [
    ['ACR', (canvas) => planSingle(single, { ...ctx(1, inspect), canvas }), LEVELS_DIALOG],
    ['pair side by side', (canvas) => planPair(pair(), { ...ctx(1, inspect), canvas }), CHOICE_DIALOG],
    ['pair one after another', (canvas) => planPair(pair(), { ...ctx(2, inspect), canvas }), CHOICE_DIALOG],
    ['DSIS side by side', (canvas) => planDsis(pair(), { ...ctx(1, inspect), canvas, params: { ...ctx(1, inspect).params, scale: IMPAIRMENT_SCALE } }), LEVELS_DIALOG],
  ];

  it.each(plans.flatMap(([name, plan, room]) => stages.map((stage) => [`${name} at ${stage.width}×${stage.height}`, plan, room, stage] as const)))(
    '%s',
    (_name, plan, room, stage) => {
      const held = plan(stage).find((s) => s.end.kind === 'hold')!;
      const rects = held.items.map((item) => item.rect);
      const slot = answerSlot({ x: 0, y: 80, ...stage }, rects, DIALOG_GAP_PX);
      expect(slot.width).toBeGreaterThanOrEqual(room.width);
      expect(Math.min(slot.height, room.height)).toBe(room.height);
      for (const r of rects) expect(overlaps(slot, { ...r, y: r.y + 80 })).toBe(false);
    },
  );

  it('a single object keeps its full size where the window is wide enough, and so does a turntable pair', () => {
    for (const stage of stages) {
      const held = planSingle(single, { ...ctx(1, inspect), canvas: stage })[0]!.items[0]!.rect;
      expect(held.width).toBe(Math.min(1024, stage.height - 32));
    }
    const turning = planPair(pair(), { ...ctx(1), canvas: stages[0]! })[0]!.items.map((i) => i.rect.width);
    expect(turning).toEqual([608, 608]);
  });
});
