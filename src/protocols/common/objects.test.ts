import { describe, expect, it } from 'vitest';
import { OBJECT_DEFAULTS } from '../../contract/objects.js';
import type { PlaylistStimulus } from '../../contract/playlist.js';
import { en } from '../../web/i18n/en.js';
import { fr } from '../../web/i18n/fr.js';
import { planDsis } from '../dsis/scale.js';
import { pairLabels, planPair, type PairParams } from '../pair/plan.js';
import type { PlanContext } from '../types.js';
import { planSingle } from './levels/singleStimulus.js';

/** 3D objects in the staged protocols' pure plans (README "3D objects"). */

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

  it('the pair dialog says object, in English and French', () => {
    const labels = pairLabels(pair(), ctx(1).params);
    expect([en[labels.first], en[labels.last], en[labels.replay]]).toEqual(['First object', 'Last object', 'Replay objects']);
    expect([fr[labels.first], fr[labels.last], fr[labels.replay]]).toEqual(['Premier objet', 'Dernier objet', 'Revoir les objets']);
    // Images keep their labels.
    expect(en[pairLabels(pair({ sourceA: 'a.png', sourceB: 'b.png' }), ctx(1).params).first]).toBe('First Image');
  });
});
