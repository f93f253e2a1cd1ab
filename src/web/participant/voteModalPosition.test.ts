import { describe, expect, it } from 'vitest';
import { voteModalTop } from './voteModalPosition.js';

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
