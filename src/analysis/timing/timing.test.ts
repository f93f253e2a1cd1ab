import { describe, expect, it } from 'vitest';
import type { TimingTrial } from '../types.js';
import { analyseTiming, flagTrial } from './timing.js';

const exact = { label: 'target', requestedFrames: 12, shownFrames: 12, droppedFrames: 0 };

describe('timing quality', () => {
  it('flags a timed step not shown exactly, and dropped frames; click-ended steps have no frame target', () => {
    expect(flagTrial([exact, { label: 'answer', requestedFrames: null, shownFrames: 300, droppedFrames: 0, endedBy: 'click' }])).toEqual([]);
    // An ACR image asked for 240 frames and clicked away after 40 was shown as asked.
    expect(flagTrial([{ label: 'S', requestedFrames: 240, shownFrames: 40, droppedFrames: 0, endedBy: 'click' }])).toEqual([]);
    expect(flagTrial([{ label: 'S', requestedFrames: 240, shownFrames: 241, droppedFrames: 0, endedBy: 'duration' }])).toEqual(['S: 241 of 240 frames']);
    expect(flagTrial([{ ...exact, shownFrames: 13 }])).toEqual(['target: 13 of 12 frames']);
    expect(flagTrial([{ ...exact, droppedFrames: 2 }])).toEqual(['target: 2 dropped frames']);
    expect(flagTrial([{ ...exact, shownFrames: 13, droppedFrames: 1 }], { exactFrames: false, maxDroppedFrames: 1 })).toEqual([]);
  });

  it('summarises per observer and lists the flagged trials', async () => {
    const trials: TimingTrial[] = [
      { observer: 'o1', trial: 's1', presentations: [exact] },
      { observer: 'o1', trial: 's2', presentations: [{ ...exact, shownFrames: 11, droppedFrames: 1 }] },
      { observer: 'o2', trial: 's1', presentations: [exact, { ...exact, label: 'mask' }] },
    ];
    const result = await analyseTiming(trials);
    expect(result).toMatchObject({ trials: 3, flaggedTrials: 1 });
    expect(result.observers).toEqual([
      { observer: 'o1', trials: 2, flaggedTrials: 1, timedSteps: 2, exactSteps: 1, droppedFrames: 1, skippedVideoFrames: 0, repeatedVideoFrames: 0 },
      { observer: 'o2', trials: 1, flaggedTrials: 0, timedSteps: 2, exactSteps: 2, droppedFrames: 0, skippedVideoFrames: 0, repeatedVideoFrames: 0 },
    ]);
    expect(result.flagged).toEqual([{ observer: 'o1', trial: 's2', flagged: true, reasons: ['target: 11 of 12 frames', 'target: 1 dropped frame'] }]);
  });

  it('flags a video step whose clip frames the stage skipped or repeated, by its own count (not the element\'s)', async () => {
    const video = { label: 'V', requestedFrames: null, shownFrames: 60, droppedFrames: 0, endedBy: 'video-end' };
    const clip = { media: 'a.mp4', timing: 'stage-clock' as const, drawnFrames: 30 };
    const exactClip = { ...video, videos: [{ ...clip, skippedFrames: 0, repeatedFrames: 0 }] };
    const judder = { ...video, videos: [{ ...clip, drawnFrames: 28, skippedFrames: 2, repeatedFrames: 1 }] };
    // A record from a page before the stage counted frames (presentedFrames only) has nothing to flag.
    const legacy = { ...video, videos: [{ media: 'a.mp4', presentedFrames: 30 }] };
    expect(flagTrial([exactClip])).toEqual([]);
    expect(flagTrial([legacy])).toEqual([]);
    expect(flagTrial([judder])).toEqual(['V: a.mp4 2 skipped clip frames, 1 repeated clip frame']);
    expect(flagTrial([judder], { exactFrames: false, maxDroppedFrames: 0 })).toEqual([]);
    const result = await analyseTiming([
      { observer: 'o1', trial: 's1', presentations: [judder] },
      { observer: 'o1', trial: 's2', presentations: [exactClip] },
    ]);
    expect(result.observers).toEqual([
      { observer: 'o1', trials: 2, flaggedTrials: 1, timedSteps: 0, exactSteps: 0, droppedFrames: 0, skippedVideoFrames: 2, repeatedVideoFrames: 1 },
    ]);
  });
});
