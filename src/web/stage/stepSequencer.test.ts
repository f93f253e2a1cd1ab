import { describe, expect, it } from 'vitest';
import { isDroppedInterval } from './frameClock';
import type { FrameInfo } from './frameClock';
import { StepSequencer } from './stepSequencer';
import type { FrameChange, SequencedStep } from './stepSequencer';

const HZ60 = 1000 / 60;

/** Drives a sequencer with frames at the given timestamps, like the clock would (drop flag included). */
function drive(sequencer: StepSequencer, refreshMs: number, timestamps: number[]): Array<{ t: number; change: FrameChange }> {
  const out: Array<{ t: number; change: FrameChange }> = [];
  let last: number | null = null;
  timestamps.forEach((t, i) => {
    const intervalMs = last === null ? null : t - last;
    const frame: FrameInfo = { index: i + 1, timestamp: t, intervalMs, dropped: intervalMs !== null && isDroppedInterval(intervalMs, refreshMs) };
    out.push({ t, change: sequencer.frame(frame) });
    last = t;
  });
  return out;
}

const regular = (t0: number, period: number, count: number) => Array.from({ length: count }, (_, i) => t0 + i * period);
const step = (label: string, end: SequencedStep['end'], media: string[] = [label]): SequencedStep => ({ label, media, end });

describe('StepSequencer: durations in frames', () => {
  it('shows A 1000 ms, a 1000 ms gap and B 1000 ms for exactly 60 frames each at 60 Hz, back to back', () => {
    const seq = new StepSequencer(
      [step('A', { kind: 'duration', ms: 1000 }), step('gap', { kind: 'duration', ms: 1000 }, []), step('B', { kind: 'duration', ms: 1000 })],
      HZ60,
    );
    const out = drive(seq, HZ60, regular(5000, HZ60, 200));
    const changes = out.filter((o) => o.change.kind !== 'none');
    expect(changes.map((o) => o.change)).toEqual([
      { kind: 'show', index: 0, ended: null },
      { kind: 'show', index: 1, ended: 0 },
      { kind: 'show', index: 2, ended: 1 },
      { kind: 'finish', ended: 2 },
    ]);
    // Changes happen on frames 0, 60, 120, 180.
    expect(out.findIndex((o) => o.change.kind === 'finish')).toBe(180);
    expect(seq.finished).toBe(true);
    for (const [i, record] of seq.records.entries()) {
      expect(record).toMatchObject({ requestedFrames: 60, shownFrames: 60, renderedFrames: 60, droppedFrames: 0, endedBy: 'duration', refreshMs: HZ60 });
      expect(record.onsetMs).toBeCloseTo(5000 + i * 1000, 6);
      expect(record.offsetMs - record.onsetMs).toBeCloseTo(1000, 6);
    }
    expect(seq.records.map((r) => r.label)).toEqual(['A', 'gap', 'B']);
    expect(seq.records[1].media).toEqual([]);
    // Offset of one step is the onset of the next.
    expect(seq.records[0].offsetMs).toBe(seq.records[1].onsetMs);
  });

  it('counts frames at a 144 Hz refresh: a 500 ms replay lasts 72 frames', () => {
    const refresh = 1000 / 144;
    const seq = new StepSequencer([step('A', { kind: 'duration', ms: 500 })], refresh);
    drive(seq, refresh, regular(0, refresh, 100));
    expect(seq.records[0]).toMatchObject({ requestedFrames: 72, shownFrames: 72, renderedFrames: 72 });
    expect(seq.records[0].offsetMs).toBeCloseTo(500, 6);
  });

  it('is not fooled by jittery frame timestamps', () => {
    const jitter = [2.5, -3, 1, -1.5, 3, 0, -2.8];
    const timestamps = regular(0, HZ60, 130).map((t, i) => t + jitter[i % jitter.length]);
    const seq = new StepSequencer([step('A', { kind: 'duration', ms: 1000 }), step('B', { kind: 'duration', ms: 1000 })], HZ60);
    drive(seq, HZ60, timestamps);
    expect(seq.records.map((r) => r.shownFrames)).toEqual([60, 60]);
    expect(seq.records.map((r) => r.renderedFrames)).toEqual([60, 60]);
    expect(seq.records.map((r) => r.droppedFrames)).toEqual([0, 0]);
  });

  it('charges a dropped frame to the step on screen and still ends the step on time', () => {
    // Frames every 16.67 ms, except that frame 30 comes 50 ms (3 periods) after frame 29: frames 30 and 31 were missed.
    const timestamps = regular(0, HZ60, 120).filter((_, i) => i !== 30 && i !== 31);
    const seq = new StepSequencer([step('A', { kind: 'duration', ms: 1000 }), step('B', { kind: 'duration', ms: 500 })], HZ60);
    drive(seq, HZ60, timestamps);
    const [a, b] = seq.records;
    expect(a.droppedFrames).toBe(1);
    expect(a.drops).toEqual([{ atMs: 32 * HZ60, intervalMs: expect.closeTo(3 * HZ60, 6) }]);
    // Still 1000 ms on screen (60 refreshes), drawn in 58 frames.
    expect(a.shownFrames).toBe(60);
    expect(a.renderedFrames).toBe(58);
    expect(a.offsetMs).toBeCloseTo(1000, 6);
    expect(b).toMatchObject({ droppedFrames: 0, shownFrames: 30, renderedFrames: 30 });
    expect(b.drops).toBeUndefined();
  });

  it('charges a late frame that is also the switch frame to the outgoing step', () => {
    // Frame 60 (when A should end) arrives 40 ms late.
    const timestamps = regular(0, HZ60, 90).map((t, i) => (i >= 60 ? t + 40 : t));
    const seq = new StepSequencer([step('A', { kind: 'duration', ms: 1000 }), step('B', { kind: 'duration', ms: 100 })], HZ60);
    drive(seq, HZ60, timestamps);
    expect(seq.records[0].droppedFrames).toBe(1);
    expect(seq.records[1].droppedFrames).toBe(0);
    // A overstayed by the late frame: the record says so.
    expect(seq.records[0].shownFrames).toBe(62);
    expect(seq.records[0].offsetMs).toBeCloseTo(1040, 6);
  });

  it('shows a duration shorter than a frame for one frame', () => {
    const seq = new StepSequencer([step('flash', { kind: 'duration', ms: 4 })], HZ60);
    drive(seq, HZ60, regular(0, HZ60, 5));
    expect(seq.records[0]).toMatchObject({ requestedFrames: 1, shownFrames: 1, renderedFrames: 1 });
  });
});

describe('StepSequencer: click, video end, abort', () => {
  it('ends a click step at the frame after the click and stores the click time', () => {
    const seq = new StepSequencer([step('A', { kind: 'click', maxMs: 1000 }), step('after', { kind: 'duration', ms: 100 }, [])], HZ60);
    const frames = regular(0, HZ60, 30);
    drive(seq, HZ60, frames.slice(0, 11)); // onset at 0, frames up to 10
    seq.click(-5); // before the onset: not a reaction to the step
    drive(seq, HZ60, [frames[11]]);
    expect(seq.currentIndex).toBe(0);
    seq.click(frames[11] + 3);
    seq.click(frames[11] + 9); // second click ignored
    const [next] = drive(seq, HZ60, [frames[12]]);
    expect(next.change).toEqual({ kind: 'show', index: 1, ended: 0 });
    expect(seq.records[0]).toMatchObject({ endedBy: 'click', clickMs: frames[11] + 3, requestedFrames: 60, shownFrames: 12 });
  });

  it('ends a click step without a click after maxMs, counted in frames', () => {
    const seq = new StepSequencer([step('A', { kind: 'click', maxMs: 1000 })], HZ60);
    drive(seq, HZ60, regular(0, HZ60, 80));
    expect(seq.records[0]).toMatchObject({ endedBy: 'duration', shownFrames: 60, requestedFrames: 60 });
    expect(seq.records[0].clickMs).toBeUndefined();
  });

  it('a click step without maxMs waits for the click; a hold step for release()', () => {
    const seq = new StepSequencer([step('ready', { kind: 'click' }), step('face', { kind: 'hold' })], HZ60);
    const frames = regular(0, HZ60, 400);
    drive(seq, HZ60, frames.slice(0, 300));
    expect(seq.currentIndex).toBe(0);
    seq.release(); // not a hold step: ignored
    seq.click(frames[299] + 1);
    drive(seq, HZ60, frames.slice(300, 301));
    expect(seq.currentIndex).toBe(1);
    seq.click(frames[300] + 1); // not a click step: ignored
    drive(seq, HZ60, frames.slice(301, 350));
    expect(seq.currentIndex).toBe(1);
    seq.release();
    drive(seq, HZ60, frames.slice(350, 351));
    expect(seq.finished).toBe(true);
    expect(seq.records.map((r) => [r.label, r.requestedFrames, r.endedBy, r.shownFrames])).toEqual([
      ['ready', null, 'click', 300],
      ['face', null, 'answer', 50],
    ]);
  });

  it('ignores clicks on a step that does not end on click', () => {
    const seq = new StepSequencer([step('A', { kind: 'duration', ms: 200 })], HZ60);
    drive(seq, HZ60, regular(0, HZ60, 3));
    seq.click(2 * HZ60 + 1);
    drive(seq, HZ60, regular(3 * HZ60, HZ60, 20));
    expect(seq.records[0]).toMatchObject({ endedBy: 'duration', shownFrames: 12 });
  });

  it('ends a video step at the first frame after every video ended', () => {
    const seq = new StepSequencer([step('AB', { kind: 'video-end' }, ['a.mp4', 'b.mp4'])], HZ60);
    const frames = regular(0, HZ60, 400);
    drive(seq, HZ60, frames.slice(0, 300));
    expect(seq.finished).toBe(false);
    seq.markVideosEnded();
    const [next] = drive(seq, HZ60, [frames[300]]);
    expect(next.change).toEqual({ kind: 'finish', ended: 0 });
    expect(seq.records[0]).toMatchObject({ endedBy: 'video-end', requestedFrames: null, shownFrames: 300, media: ['a.mp4', 'b.mp4'] });
  });

  it('aborts: ends the current step at the next frame and skips the rest', () => {
    const seq = new StepSequencer([step('A', { kind: 'duration', ms: 1000 }), step('B', { kind: 'duration', ms: 1000 })], HZ60);
    drive(seq, HZ60, regular(0, HZ60, 10));
    seq.abort();
    const [next] = drive(seq, HZ60, [10 * HZ60]);
    expect(next.change).toEqual({ kind: 'finish', ended: 0 });
    expect(seq.records).toHaveLength(1);
    expect(seq.records[0]).toMatchObject({ endedBy: 'abort', shownFrames: 10 });
    expect(drive(seq, HZ60, [11 * HZ60])[0].change).toEqual({ kind: 'none' });
  });

  it('finishes at once with no steps', () => {
    const seq = new StepSequencer([], HZ60);
    expect(drive(seq, HZ60, [0])[0].change).toEqual({ kind: 'finish', ended: null });
    expect(seq.records).toEqual([]);
  });

  it('keeps the first render-done time of a step', () => {
    const seq = new StepSequencer([step('A', { kind: 'duration', ms: 100 })], HZ60);
    drive(seq, HZ60, [0]);
    seq.markOnsetRendered(7.5);
    seq.markOnsetRendered(9);
    expect(seq.records[0].renderDoneMs).toBe(7.5);
  });
});

describe('StepSequencer: interruptions (issue 36)', () => {
  it('ends the step on screen at once, counting the refreshes drawn before, and shows nothing after', () => {
    const sequencer = new StepSequencer([step('A', { kind: 'duration', ms: 1000 }), step('B', { kind: 'duration', ms: 1000 })], HZ60);
    // Onset at frame 0, then 10 refreshes drawn; the page is hidden 5 ms after the last frame.
    drive(sequencer, HZ60, regular(0, HZ60, 11));
    expect(sequencer.interrupt('hidden', 10 * HZ60 + 5)).toBe(0);
    expect(sequencer.records).toEqual([
      expect.objectContaining({ label: 'A', requestedFrames: 60, shownFrames: 10, offsetMs: 10 * HZ60 + 5, endedBy: 'interrupted', interrupted: { cause: 'hidden', atMs: 10 * HZ60 + 5, refreshes: 10 } }),
    ]);
    expect(sequencer.finished).toBe(true);
    // A frame that comes later (the page shown again) changes nothing.
    expect(drive(sequencer, HZ60, [5000]).map((f) => f.change.kind)).toEqual(['none']);
    expect(sequencer.interrupt('context-lost', 6000)).toBeNull();
  });

  it('before the first onset: nothing was shown, no record', () => {
    const sequencer = new StepSequencer([step('A', { kind: 'duration', ms: 100 })], HZ60);
    expect(sequencer.interrupt('context-lost', 1)).toBeNull();
    expect(sequencer.records).toEqual([]);
  });
});
