import { describe, expect, it } from 'vitest';
import { answerSlot, voteModalTop } from './voteModalPosition.js';

describe('vote dialog position', () => {
  it('sits at 40% of the window height on a computer', () => {
    expect(voteModalTop({ phone: false, portrait: false, innerHeight: 1000, outerHeight: 1100 })).toBe(400);
    expect(voteModalTop({ phone: false, portrait: true, innerHeight: 720, outerHeight: 720 })).toBe(288);
  });
  it('sits at 45% (portrait) or 7.5% (landscape) of the outer height on a phone', () => {
    expect(voteModalTop({ phone: true, portrait: true, innerHeight: 700, outerHeight: 800 })).toBe(360);
    expect(voteModalTop({ phone: true, portrait: false, innerHeight: 350, outerHeight: 400 })).toBe(30);
  });
});

describe('the dialog slot beside 3D objects under inspection', () => {
  const stage = { x: 0, y: 80, width: 1366, height: 688 };
  it('right of a single object, as high as the stage less the gaps', () => {
    expect(answerSlot(stage, [{ x: 355, y: 16, width: 656, height: 656 }], 16)).toEqual({ x: 1027, y: 96, width: 323, height: 656 });
  });
  it('below a pair that spans the width', () => {
    expect(answerSlot(stage, [{ x: 16, y: 16, width: 510, height: 510 }, { x: 542, y: 16, width: 510, height: 510 }].map((r) => ({ ...r, x: r.x + 147 })), 16)).toEqual({
      x: 16,
      y: 622,
      width: 1334,
      height: 130,
    });
  });
  it('never a negative size', () => {
    expect(answerSlot({ x: 0, y: 0, width: 100, height: 100 }, [{ x: 0, y: 0, width: 100, height: 100 }], 16)).toEqual({ x: 116, y: 16, width: 0, height: 68 });
  });
});
