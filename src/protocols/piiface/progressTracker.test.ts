import { afterEach, describe, expect, it, vi } from 'vitest';
import { initialFlowState, transition, type FlowEvent, type FlowState } from '../../web/flow/phases.js';
import { progressSnapshot, ProgressTracker, type ProgressSnapshot, type TrialPosition } from './progressTracker.js';

function flowAfter(...events: FlowEvent[]): FlowState {
  return events.reduce(transition, initialFlowState());
}

const CONFIG = { visualTests: false, consentForm: false };
const TO_INSTRUCTIONS: FlowEvent[] = [{ type: 'JOB_LOADED', config: CONFIG }, { type: 'ELIGIBILITY_PASSED' }, { type: 'WELCOME_DONE' }];

describe('progress snapshot', () => {
  it('grows along the journey and through the images, training first', () => {
    const percents = [
      progressSnapshot(flowAfter(), null),
      progressSnapshot(flowAfter({ type: 'JOB_LOADED', config: CONFIG }), null),
      progressSnapshot(flowAfter(...TO_INSTRUCTIONS, { type: 'PLAYLIST_LOADED', hasTraining: true, resumeAt: 0 }), null),
    ].map((s) => s.percent);
    const training = flowAfter(...TO_INSTRUCTIONS, { type: 'PLAYLIST_LOADED', hasTraining: true, resumeAt: 0 }, { type: 'INSTRUCTIONS_DONE' }, { type: 'LOADING_DONE' });
    percents.push(progressSnapshot(training, { training: true, index: 0, total: 2 }).percent);
    percents.push(progressSnapshot(training, { training: true, index: 1, total: 2 }).percent);
    const test = transition(transition(transition(training, { type: 'TEST_DONE' }), { type: 'INSTRUCTIONS_DONE' }), { type: 'LOADING_DONE' });
    percents.push(progressSnapshot(test, { training: false, index: 0, total: 4 }).percent);
    percents.push(progressSnapshot(test, { training: false, index: 3, total: 4 }).percent);
    percents.push(progressSnapshot(transition(test, { type: 'TEST_DONE' }), null).percent);
    expect(percents).toEqual([0, 5, 10, 15, 25, 35, 80, 100]);
  });

  it('carries the logged status of the phase', () => {
    const s = progressSnapshot(flowAfter(...TO_INSTRUCTIONS, { type: 'PLAYLIST_LOADED', hasTraining: false, resumeAt: 0 }, { type: 'INSTRUCTIONS_DONE' }), null);
    expect(s).toMatchObject({ phase: 'Loading', status: 'test', percent: 15 });
  });
});

describe('progress tracker', () => {
  afterEach(() => vi.useRealTimers());

  it('samples every 100 ms, reports changes only, and logs each new image once', () => {
    vi.useFakeTimers();
    let flow = flowAfter(...TO_INSTRUCTIONS, { type: 'PLAYLIST_LOADED', hasTraining: false, resumeAt: 0 }, { type: 'INSTRUCTIONS_DONE' }, { type: 'LOADING_DONE' });
    let position: TrialPosition | null = null;
    const changes: ProgressSnapshot[] = [];
    const logged: string[] = [];
    const sample = vi.fn(() => progressSnapshot(flow, position));
    const stop = new ProgressTracker(sample, { onChange: (s) => changes.push(s), onNewPosition: (l) => logged.push(l) }).start();

    vi.advanceTimersByTime(1000);
    expect(sample).toHaveBeenCalledTimes(11);
    expect(changes).toHaveLength(1);

    position = { training: false, index: 0, total: 2 };
    vi.advanceTimersByTime(100);
    position = { training: false, index: 0, total: 2 }; // same image, new object
    vi.advanceTimersByTime(300);
    position = { training: false, index: 1, total: 2 };
    vi.advanceTimersByTime(100);
    flow = transition(flow, { type: 'TEST_DONE' });
    position = null;
    vi.advanceTimersByTime(100);
    stop();
    vi.advanceTimersByTime(1000);

    expect(logged).toEqual(['test 1/2', 'test 2/2']);
    expect(changes.map((c) => [c.phase, c.percent])).toEqual([
      ['Test', 15],
      ['Test', 15],
      ['Test', 55],
      ['Result', 100],
    ]);
    expect(sample).toHaveBeenCalledTimes(17);
  });
});
