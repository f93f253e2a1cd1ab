import { describe, expect, it } from 'vitest';
import { blurPlan } from './blurPlan';

describe('bubble blur plan', () => {
  it('small deviations run at full resolution with the exact deviation', () => {
    const plan = blurPlan(320, 180, 3);
    expect(plan).toMatchObject({ factor: 1, passSigma: 3, width: 320, height: 180, taps: 19 });
    expect(plan.uvScale).toEqual([1, 1]);
  });

  it('the factor grows with sigma so the taps per source texel stay about the same, and the total deviation is kept', () => {
    const perTexel = [4, 8, 16, 32, 64].map((sigma) => {
      const plan = blurPlan(1920, 1080, sigma);
      // passes + bilinear reconstruction (variance f²/6) = requested deviation
      expect(Math.sqrt(plan.passSigma ** 2 + plan.factor ** 2 / 6)).toBeCloseTo(sigma, 10);
      return plan.taps / plan.factor;
    });
    for (const taps of perTexel) expect(taps).toBeGreaterThan(10);
    for (const taps of perTexel) expect(taps).toBeLessThan(16);
  });

  it('rounds the blurred size up and compensates in the UV scale', () => {
    const plan = blurPlan(1000, 563, 12);
    expect(plan.factor).toBe(6);
    expect([plan.width, plan.height]).toEqual([167, 94]);
    expect(plan.uvScale[0]).toBeCloseTo(1000 / (6 * 167), 12);
    expect(plan.uvScale[1]).toBeCloseTo(563 / (6 * 94), 12);
  });

  it('no blur: one tap, no reduction', () => {
    expect(blurPlan(64, 64, 0)).toMatchObject({ factor: 1, passSigma: 0, taps: 1 });
    expect(() => blurPlan(0, 10, 2)).toThrow(RangeError);
  });
});
