import { describe, expect, it } from 'vitest';
import { canonicalBytesRange, parseBytesRangeHeader } from './http-range.js';

describe('parseBytesRangeHeader (RFC 9110 §14.1)', () => {
  it.each([
    ['bytes=0-499', [{ first: 0, last: 499 }]],
    ['bytes=500-', [{ first: 500, last: undefined }]],
    ['bytes=-500', [{ suffix: 500 }]],
    ['BYTES=0-0', [{ first: 0, last: 0 }]],
    ['bytes=0-1, 5-6 ,,-3', [{ first: 0, last: 1 }, { first: 5, last: 6 }, { suffix: 3 }]],
    ['bytes=-0', [{ suffix: 0 }]],
  ])('reads %j', (header, specs) => {
    expect(parseBytesRangeHeader(header)).toEqual(specs);
  });

  it.each(['bytes=abc', 'items=0-1', 'bytes=5-3', 'bytes=', 'bytes=,', 'bytes=0-1,abc', 'bytes = 0-1x', 'bytes=1 -2', 'bytes=0x10-', '0-1', 'bytes=+1-2'])(
    'refuses %j (the header is then ignored)',
    (header) => {
      expect(parseBytesRangeHeader(header)).toBeNull();
    },
  );

  it('compares huge positions exactly and caps them for the sender', () => {
    expect(parseBytesRangeHeader('bytes=99999999999999999999-99999999999999999998')).toBeNull();
    expect(parseBytesRangeHeader('bytes=99999999999999999999-')).toEqual([{ first: Number.MAX_SAFE_INTEGER, last: undefined }]);
  });

  it('writes the canonical header the file sender reads', () => {
    expect(canonicalBytesRange(parseBytesRangeHeader('Bytes= 0-1 , 7- ,-3')!)).toBe('bytes=0-1,7-,-3');
  });
});
