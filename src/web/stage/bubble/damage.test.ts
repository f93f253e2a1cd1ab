import { describe, expect, it } from 'vitest';
import { DAMAGE_MARGIN_PX, windowDamage } from './damage';

const media = { x: 40, y: 30, width: 320, height: 240 };

describe('window damage', () => {
  it('is the union of the old and new windows boxes, with the rim margin, in whole px', () => {
    const m = DAMAGE_MARGIN_PX;
    expect(windowDamage({ x: 100, y: 100, radius: 20 }, { x: 110.5, y: 104, radius: 20 }, media)).toEqual({
      x: 100 - 20 - m,
      y: 100 - 20 - m,
      width: Math.ceil(110.5 + 20 + m) - (100 - 20 - m),
      height: 104 + 20 + m - (100 - 20 - m),
    });
  });

  it('without a previous window only the new box, clipped to the media', () => {
    expect(windowDamage(null, { x: 45, y: 35, radius: 20 }, media)).toEqual({ x: 40, y: 30, width: 27, height: 27 });
  });

  it('nothing when both windows are off the media', () => {
    expect(windowDamage({ x: 0, y: 0, radius: 5 }, { x: 10, y: 5, radius: 5 }, media)).toBeNull();
  });
});
