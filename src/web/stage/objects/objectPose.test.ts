import { describe, expect, it } from 'vitest';
import { OBJECT_DEFAULTS, objectOptionProblems, resolveObjectOptions, type ResolvedObjectOptions } from '../../../contract/objects';
import { cadenceRateHz, frameDueAt, frameStarts } from '../clipCadence';
import { cameraOffset, fittedDistance, inspectStartPose, orbit, turntablePose, turntablePoseCount, turntableTimeline, zoom } from './objectPose';

const o = (patch: Partial<ResolvedObjectOptions> = {}): ResolvedObjectOptions => ({ ...OBJECT_DEFAULTS, ...patch });

describe('turntable poses', () => {
  it('one turn at the default speed and pose rate is 600 poses (10 s at 60 poses/s); frames wins over turns', () => {
    expect(turntablePoseCount(o())).toBe(600);
    expect(turntablePoseCount(o({ turns: 2, degreesPerSecond: 90, posesPerSecond: 30 }))).toBe(240);
    expect(turntablePoseCount(o({ turns: 3, frames: 7 }))).toBe(7);
  });

  it('pose k is at start + speed · k / rate, at the declared elevation and the fitted distance', () => {
    const opts = o({ startAzimuthDeg: 30, degreesPerSecond: 45, posesPerSecond: 60, elevationDeg: -10 });
    expect(turntablePose(opts, 0)).toEqual({ az: 30, el: -10, dist: 1 });
    expect(turntablePose(opts, 120)).toEqual({ az: 120, el: -10, dist: 1 });
  });

  it('the same pose is due at the same time on 60, 120, 144 and 240 Hz displays (clip cadence of the poses)', () => {
    const opts = o({ frames: 60, posesPerSecond: 60, degreesPerSecond: 60 });
    const timeline = turntableTimeline(opts);
    expect(timeline.endTime).toBe(1);
    for (const hz of [60, 120, 144, 240]) {
      const starts = frameStarts(timeline, cadenceRateHz(1000 / hz));
      // The pose on screen 0.5 s after the onset is pose 30 everywhere.
      expect(frameDueAt(starts, Math.round(0.5 * hz))).toBe(30);
      expect(starts.at(-1)).toBe(hz);
    }
    // 60 poses/s at 144 Hz: 2 or 3 refreshes per pose, 144 refreshes in all.
    const at144 = frameStarts(timeline, 144);
    const lengths = at144.slice(1).map((s, k) => s - at144[k]!);
    expect(new Set(lengths)).toEqual(new Set([2, 3]));
  });
});

describe('inspect camera', () => {
  const opts = o({ mode: 'inspect', startAzimuthDeg: 10, elevationDeg: 70, elevationRange: [-30, 45], zoom: [0.5, 1.5] });

  it('starts at the declared pose within the elevation bounds', () => {
    expect(inspectStartPose(opts)).toEqual({ az: 10, el: 45, dist: 1 });
  });

  it('a drag turns 0.4° per pixel and stays within the elevation bounds', () => {
    const pose = orbit({ az: 0, el: 0, dist: 1 }, 100, 50, opts);
    expect(pose).toEqual({ az: -40, el: 20, dist: 1 });
    expect(orbit(pose, 0, 1000, opts).el).toBe(45);
    expect(orbit(pose, 0, -1000, opts).el).toBe(-30);
  });

  it('the wheel zooms by e^(deltaY/1000) within the zoom bounds', () => {
    expect(zoom({ az: 0, el: 0, dist: 1 }, 100, opts).dist).toBeCloseTo(Math.exp(0.1), 12);
    expect(zoom({ az: 0, el: 0, dist: 1 }, 5000, opts).dist).toBe(1.5);
    expect(zoom({ az: 0, el: 0, dist: 1 }, -5000, opts).dist).toBe(0.5);
  });
});

describe('camera placement', () => {
  it('the fitted distance puts the bounding sphere tangent to the narrower field of view', () => {
    expect(fittedDistance(1, 60, 1)).toBeCloseTo(2, 12);
    // A tall view (aspect 0.5): the horizontal field is the narrower one.
    const horizontal = 2 * Math.atan(Math.tan(Math.PI / 6) * 0.5);
    expect(fittedDistance(1, 60, 0.5)).toBeCloseTo(1 / Math.sin(horizontal / 2), 12);
  });

  it('azimuth 0 looks from +Z, 90 from +X; elevation raises the camera; dist scales the distance', () => {
    const [x0, y0, z0] = cameraOffset({ az: 0, el: 0, dist: 1 }, 2);
    expect([x0, y0, z0].map((v) => +v.toFixed(12))).toEqual([0, 0, 2]);
    const [x1, , z1] = cameraOffset({ az: 90, el: 0, dist: 0.5 }, 2);
    expect([+x1.toFixed(12), +z1.toFixed(12)]).toEqual([1, 0]);
    expect(cameraOffset({ az: 0, el: 90, dist: 1 }, 3)[1]).toBeCloseTo(3, 12);
  });
});

describe('options', () => {
  it('a stimulus key overrides the job key, others keep the job value or the default', () => {
    const resolved = resolveObjectOptions({ mode: 'inspect', fovDeg: 40 }, { fovDeg: 25, minInspectMs: 3000 });
    expect(resolved).toEqual({ ...OBJECT_DEFAULTS, mode: 'inspect', fovDeg: 25, minInspectMs: 3000 });
  });

  it('bounds in the wrong order are problems', () => {
    expect(objectOptionProblems({ zoom: [1.5, 2], elevationRange: [30, -30] }).map(([field]) => field)).toEqual(['zoom', 'elevationRange']);
    expect(objectOptionProblems({ zoom: [0.5, 2] })).toEqual([]);
  });
});
