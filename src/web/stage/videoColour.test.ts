import { describe, expect, it } from 'vitest';
import { clipColour, conversionConstants } from './videoColour';

describe('clipColour: the conversion a clip calls for', () => {
  it('follows the clip\'s tags: BT.709, and BT.601 under its two names, with the range it declares', () => {
    expect(clipColour({ matrix: 'bt709', fullRange: false }, 320, 180)).toEqual({ matrix: 'bt709', fullRange: false, tagged: { matrix: true, range: true } });
    expect(clipColour({ matrix: 'smpte170m', fullRange: true }, 1920, 1080)).toMatchObject({ matrix: 'bt601', fullRange: true });
    expect(clipColour({ matrix: 'bt470bg', fullRange: null }, 1920, 1080)).toEqual({ matrix: 'bt601', fullRange: false, tagged: { matrix: true, range: false } });
  });

  it("an untagged clip follows mpv's convention: BT.709 from 1280 wide or above 576 lines, limited range", () => {
    expect(clipColour(null, 320, 180)).toEqual({ matrix: 'bt601', fullRange: false, tagged: { matrix: false, range: false } });
    expect(clipColour({}, 720, 576).matrix).toBe('bt601');
    expect(clipColour({}, 720, 578).matrix).toBe('bt709');
    expect(clipColour({ matrix: null }, 1280, 544).matrix).toBe('bt709');
  });

  it('gives the shader the offsets and scales of each range and the Kr, Kb of each matrix', () => {
    expect(conversionConstants(clipColour({ matrix: 'bt709', fullRange: false }, 1, 1))).toEqual({ range: [16, 1 / 219, 128, 1 / 224], k: [0.2126, 0.0722] });
    expect(conversionConstants(clipColour({ matrix: 'smpte170m', fullRange: true }, 1, 1))).toEqual({ range: [0, 1 / 255, 128, 1 / 255], k: [0.299, 0.114] });
  });
});
