import { describe, expect, it } from 'vitest';
import type { TimingEnvelope } from '../../contract/payloads.js';
import type { PresentationRecord } from '../stage/types.js';
import { Value } from '@sinclair/typebox/value';
import { TimingEnvelope as TimingEnvelopeSchema } from '../../contract/payloads.js';
import { testWindow } from '../../../testkit/liveServer.js';
import { fitTiming, MAX_TIMING_CHARS, timingEnvelope } from './timingEnvelope.js';

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

const envelope = (plays: PresentationRecord[][]): TimingEnvelope => ({
  v: 2,
  plays,
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

describe('timing envelope', () => {
  it('keeps every play when it fits', () => {
    expect(fitTiming(envelope([[record('AB')], [record('AB')]])).plays).toHaveLength(2);
  });

  it('drops the middle replays when it would pass the size cap, keeping the first and last plays', () => {
    const plays = Array.from({ length: 40 }, (_, i) => [record(`play${i}`, 400)]);
    const fitted = fitTiming(envelope(plays));
    expect(JSON.stringify(fitted).length).toBeLessThanOrEqual(MAX_TIMING_CHARS);
    expect(fitted.truncated).toBe(true);
    expect(fitted.plays[0]![0]!.label).toBe('play0');
    expect(fitted.plays.at(-1)![0]!.label).toBe('play39');
  });

  it('carries the refresh estimate: period, its uncertainty, the intervals fitted and the changes of rate', () => {
    const refresh = { periodMs: 6.94441, uncertaintyMs: 0.00021, intervals: 812, changes: [{ atMs: 5000.1, fromMs: 16.6667, toMs: 6.9444 }] };
    const built = timingEnvelope({ plays: [[record('AB')]], refreshMs: refresh.periodMs, refresh }, testWindow());
    expect(built.refresh).toEqual(refresh);
    expect(Value.Check(TimingEnvelopeSchema, built)).toBe(true);
    // An estimate that is not a number yet (too few frames) is left out rather than sent as null.
    const unknown = timingEnvelope({ plays: [], refreshMs: null, refresh: { ...refresh, uncertaintyMs: Number.POSITIVE_INFINITY } }, testWindow());
    expect(unknown).not.toHaveProperty('refresh');
    expect(Value.Check(TimingEnvelopeSchema, { ...built, refresh: { ...refresh, extra: 1 } })).toBe(false);
  });
});
