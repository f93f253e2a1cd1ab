import { describe, expect, it } from 'vitest';
import { faceTransition, firstFaceTrial, type FaceEvent, type FaceRunOptions, type FaceTrialState } from './faceTrials.js';

const run = (options: FaceRunOptions, ...events: FaceEvent['type'][]): FaceTrialState =>
  events.reduce((s, type) => faceTransition(s, { type }, options), firstFaceTrial(options));

describe('piiface trial machine', () => {
  it('test: shown, answered, saved, next image; done after the last', () => {
    const test = { count: 2, training: false };
    expect(run(test, 'SHOWN', 'ANSWERED')).toEqual({ index: 0, status: 'saving', plays: 0 });
    expect(run(test, 'SHOWN', 'ANSWERED', 'STORED')).toEqual({ index: 1, status: 'preparing', plays: 0 });
    expect(run(test, 'SHOWN', 'ANSWERED', 'STORED', 'SHOWN', 'ANSWERED', 'STORED').status).toBe('done');
  });

  it('a failed save shows the same image again as a new presentation', () => {
    const state = run({ count: 2, training: false }, 'SHOWN', 'ANSWERED', 'FAILED');
    expect(state).toEqual({ index: 0, status: 'preparing', plays: 1 });
    expect(faceTransition(state, { type: 'SHOWN' }, { count: 2, training: false }).status).toBe('showing');
  });

  it('training moves on at once; answering before the image is shown does nothing', () => {
    expect(run({ count: 2, training: true }, 'SHOWN', 'ANSWERED')).toEqual({ index: 1, status: 'preparing', plays: 0 });
    const preparing = firstFaceTrial({ count: 2, training: false });
    expect(faceTransition(preparing, { type: 'ANSWERED' }, { count: 2, training: false })).toBe(preparing);
    expect(firstFaceTrial({ count: 0, training: false }).status).toBe('done');
    // A resumed session goes on after the answered images.
    expect(firstFaceTrial({ count: 3, training: false, start: 2 })).toEqual({ index: 2, status: 'preparing', plays: 0 });
    expect(firstFaceTrial({ count: 3, training: false, start: 3 }).status).toBe('done');
  });
});
