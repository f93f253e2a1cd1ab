import { describe, expect, it } from 'vitest';
import type { PresentationRecord } from '../stage/types.js';
import { MAX_RATING_LOGS_CHARS, ratingLogsText, type RatingLogs } from './ratingLogs.js';

const record = (label: string, drops = 0): PresentationRecord => ({
  label,
  media: ['job/a.png'],
  requestedFrames: 30,
  shownFrames: 30,
  onsetMs: 1000,
  offsetMs: 1500,
  droppedFrames: drops,
  refreshMs: 16.7,
  drops: Array.from({ length: drops }, (_, i) => ({ atMs: i, intervalMs: 40 })),
});

const logs = (plays: PresentationRecord[][]): RatingLogs => ({
  v: 1,
  presentations: plays,
  refreshMs: 16.7,
  timeOrigin: 1_700_000_000_000,
  window: {
    inner: { width: 1280, height: 720 },
    outer: { width: 1280, height: 720 },
    screen: { width: 1280, height: 720 },
    available: { width: 1280, height: 720 },
    document: { width: 1280, height: 720 },
    zoom: 100,
    isfullScreen: true,
  },
});

describe('rating logs', () => {
  it('is the JSON of every play', () => {
    const text = ratingLogsText(logs([[record('AB')], [record('AB')]]));
    expect(JSON.parse(text).presentations).toHaveLength(2);
  });

  it('drops the middle replays when the text would pass the server limit, keeping the first and last plays', () => {
    const plays = Array.from({ length: 40 }, (_, i) => [record(`play${i}`, 400)]);
    const text = ratingLogsText(logs(plays));
    expect(text.length).toBeLessThanOrEqual(MAX_RATING_LOGS_CHARS);
    const parsed = JSON.parse(text);
    expect(parsed.truncated).toBe(true);
    expect(parsed.presentations[0][0].label).toBe('play0');
    expect(parsed.presentations.at(-1)[0].label).toBe('play39');
  });
});
