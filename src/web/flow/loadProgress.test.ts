import { describe, expect, it } from 'vitest';
import { formatHms, formatMo, loadFigures } from './loadProgress.js';
import { mediaType, mediaUrl } from './mediaLoader.js';

describe('media loading figures', () => {
  it('estimates the unknown files from the known average and extrapolates the rate', () => {
    const f = loadFigures(
      [
        { expectedBytes: 2_000_000, receivedBytes: 2_000_000, finished: true },
        { expectedBytes: 2_000_000, receivedBytes: 1_000_000, finished: false },
        { expectedBytes: null, receivedBytes: 0, finished: false },
        { expectedBytes: null, receivedBytes: 0, finished: false },
      ],
      3000,
    );
    // Total estimated 8 MB, 3 MB received at 1 MB/s.
    expect(f).toEqual({ total: 4, finished: 1, percent: 37, remainingMs: 5000, remainingBytes: 5_000_000 });
  });

  it('is an integer percent that reaches 100 only when every file has finished', () => {
    const almost = loadFigures([{ expectedBytes: 1000, receivedBytes: 1000, finished: false }], 10);
    expect(almost.percent).toBe(99);
    const done = loadFigures([{ expectedBytes: 1000, receivedBytes: 1000, finished: true }], 10);
    expect(done).toMatchObject({ percent: 100, remainingMs: 0, remainingBytes: 0 });
  });

  it('with every size known from the playlist, the remaining size only goes down', () => {
    const files = [1_000_000, 3_000_000, 500_000].map((size) => ({ expectedBytes: size, receivedBytes: 0, finished: false }));
    const remaining: number[] = [loadFigures(files, 0).remainingBytes];
    for (const [i, step] of [[0, 1_000_000], [2, 500_000], [1, 1_000_000], [1, 3_000_000]] as const) {
      files[i]!.receivedBytes = step;
      if (step === files[i]!.expectedBytes) files[i]!.finished = true;
      remaining.push(loadFigures(files, 1000).remainingBytes);
    }
    expect(remaining).toEqual([4_500_000, 3_500_000, 3_000_000, 2_000_000, 0]);
  });

  it('has no remaining time before the first byte', () => {
    expect(loadFigures([{ expectedBytes: null, receivedBytes: 0, finished: false }], 0).remainingMs).toBeNull();
    expect(loadFigures([], 0).percent).toBe(100);
  });

  it('formats hh:mm:ss and Mo', () => {
    expect(formatHms(5000)).toBe('00:00:05');
    expect(formatHms(3_725_000)).toBe('01:02:05');
    expect(formatHms(1)).toBe('00:00:01');
    expect(formatHms(null)).toBe('--:--:--');
    expect(formatMo(5_000_000)).toBe('5.0');
    expect(formatMo(1_234_567)).toBe('1.2');
  });
});

describe('media names', () => {
  it('builds the resmedias URL with each segment encoded', () => {
    expect(mediaUrl('', 'job1/a b.png')).toBe('/resmedias/job1/a%20b.png');
    expect(mediaUrl('https://media.example.org', 'job1/sub/c.mp4')).toBe('https://media.example.org/resmedias/job1/sub/c.mp4');
  });

  it('tells images from videos by Content-Type, else by extension', () => {
    expect(mediaType('x/a.bin', 'image/png')).toEqual({ kind: 'image', mime: 'image/png' });
    expect(mediaType('x/a.mp4', 'application/octet-stream')).toEqual({ kind: 'video', mime: 'video/mp4' });
    expect(mediaType('x/a.JPG', null)).toEqual({ kind: 'image', mime: 'image/jpeg' });
    expect(mediaType('x/a.txt', 'text/plain')).toBeNull();
  });
});
