import { describe, expect, it } from 'vitest';
import { formatSizeLog, parseSizeLog, windowSizeLog } from './sizeLog.js';

const FIELDS = {
  inner: { width: 1280, height: 718.6 },
  outer: { width: 1280, height: 800 },
  screen: { width: 1920, height: 1080 },
  fullscreen: false,
};

describe('rating size text (bubble and piiface logs)', () => {
  it('writes inner, outer and screen as WIDTHxHEIGHT and the fullscreen flag, in that order', () => {
    expect(formatSizeLog(FIELDS)).toBe('inner:1280x719;outer:1280x800;screen:1920x1080;fullscreen:0');
    expect(formatSizeLog({ ...FIELDS, fullscreen: true }, { media: 'missing' })).toBe(
      'inner:1280x719;outer:1280x800;screen:1920x1080;fullscreen:1;media:missing',
    );
  });

  it('reads a window, with the SPEC §5 fullscreen rule (inner height + 2 >= outer height)', () => {
    const win = (innerHeight: number) =>
      ({ innerWidth: 1920, innerHeight, outerWidth: 1920, outerHeight: 1080, screen: { width: 1920, height: 1080 } }) as unknown as Window;
    expect(windowSizeLog(win(1078))).toBe('inner:1920x1078;outer:1920x1080;screen:1920x1080;fullscreen:1');
    expect(windowSizeLog(win(1077))).toBe('inner:1920x1077;outer:1920x1080;screen:1920x1080;fullscreen:0');
  });

  it('parses its own text by key and refuses anything else', () => {
    expect(parseSizeLog(formatSizeLog(FIELDS, { media: 'missing' }))).toEqual({
      inner: '1280x719',
      outer: '1280x800',
      screen: '1920x1080',
      fullscreen: '0',
      media: 'missing',
    });
    expect(parseSizeLog('{"v":1}')).toBeNull();
    expect(parseSizeLog('inner:1x1;outer:1x1;screen:1x1')).toBeNull();
    expect(parseSizeLog('inner:1x1;outer:1x1;screen:wide;fullscreen:1')).toBeNull();
  });
});
