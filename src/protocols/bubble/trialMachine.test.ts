import { describe, expect, it } from 'vitest';
import { firstTrial, trialTransition, type TrialEvent, type TrialOptions, type TrialState } from './trialMachine.js';

const base: TrialOptions = { count: 2, repetitions: 0, repetitionPossible: false, freeTask: false };

/** Runs the events and returns every state's [index, replays, step] (with the centering reason). */
function run(options: TrialOptions, events: TrialEvent['type'][]): string[] {
  let state: TrialState = firstTrial(options);
  const seen = [describe(state)];
  for (const type of events) {
    state = trialTransition(state, { type }, options);
    seen.push(describe(state));
  }
  return seen;
  function describe(s: TrialState): string {
    return `${s.index}/${s.replays}/${s.step.kind}${s.step.kind === 'centering' ? `:${s.step.reason}` : ''}`;
  }
}

const play: TrialEvent['type'][] = ['CENTERED', 'CLICKED', 'PLAYED'];

describe('bubble trial machine (SPEC §4 bubble test)', () => {
  it('without repetition: centering, click, play, rating, then the next stimulus and the end', () => {
    expect(run(base, [...play, 'RATED', ...play, 'RATED'])).toEqual([
      '0/0/centering:first',
      '0/0/ready',
      '0/0/playing',
      '0/0/rating',
      '1/0/centering:first',
      '1/0/ready',
      '1/0/playing',
      '1/0/rating',
      '1/0/done',
    ]);
  });

  it('an interrupted play (ready or playing) goes back to its centering, the same play again: not a replay', () => {
    expect(run({ ...base, repetitions: 1 }, ['CENTERED', 'INTERRUPTED', 'CENTERED', 'CLICKED', 'INTERRUPTED', ...play, 'RATED', 'INTERRUPTED'])).toEqual([
      '0/0/centering:first',
      '0/0/ready',
      '0/0/centering:interrupted',
      '0/0/ready',
      '0/0/playing',
      '0/0/centering:interrupted',
      '0/0/ready',
      '0/0/playing',
      '0/0/rating',
      '0/1/centering:repeat',
      // Not playing: nothing to interrupt.
      '0/1/centering:repeat',
    ]);
  });

  it('nr forced repetitions come with the repetition centering; the count resets for the next stimulus', () => {
    const states = run({ ...base, repetitions: 2 }, [...play, 'RATED', ...play, 'RATED', ...play, 'RATED']);
    expect(states.filter((s) => s.includes('centering'))).toEqual(['0/0/centering:first', '0/1/centering:repeat', '0/2/centering:repeat', '1/0/centering:first']);
  });

  it('rp: after the repetitions the exploration question; Yes recentres and replays, No moves on', () => {
    const options = { ...base, repetitions: 1, repetitionPossible: true };
    const states = run(options, [...play, 'RATED', ...play, 'RATED', 'EXPLORE_YES', ...play, 'RATED', 'EXPLORE_NO']);
    expect(states.slice(-8)).toEqual([
      '0/1/rating',
      '0/1/explore',
      '0/2/centering:explore',
      '0/2/ready',
      '0/2/playing',
      '0/2/rating',
      '0/2/explore',
      '1/0/centering:first',
    ]);
  });

  it('free task: no rating; after the play comes the next step directly', () => {
    expect(run({ ...base, freeTask: true }, [...play, ...play])).toEqual([
      '0/0/centering:first',
      '0/0/ready',
      '0/0/playing',
      '1/0/centering:first',
      '1/0/ready',
      '1/0/playing',
      '1/0/done',
    ]);
    // Free task with repetitions: the repetition follows the play itself.
    expect(run({ ...base, freeTask: true, repetitions: 1 }, play).at(-1)).toBe('0/1/centering:repeat');
  });

  it('a resumed session starts at its first unanswered stimulus, or is done when none is left', () => {
    expect(firstTrial({ ...base, start: 1 })).toEqual({ index: 1, replays: 0, step: { kind: 'centering', reason: 'first' } });
    expect(firstTrial({ ...base, start: base.count }).step.kind).toBe('done');
  });

  it('ignores events that do not apply in the current step (a rating before the play, a click while centering)', () => {
    const start = firstTrial(base);
    for (const type of ['CLICKED', 'PLAYED', 'RATED', 'EXPLORE_YES', 'EXPLORE_NO'] as const) {
      expect(trialTransition(start, { type }, base)).toBe(start);
    }
    const ready = trialTransition(start, { type: 'CENTERED' }, base);
    expect(trialTransition(ready, { type: 'RATED' }, base)).toBe(ready);
  });

  it('an empty run is done at once; the last stimulus leads to done, never past it', () => {
    expect(firstTrial({ ...base, count: 0 }).step.kind).toBe('done');
    const states = run({ ...base, count: 1 }, [...play, 'RATED', 'CENTERED']);
    expect(states.slice(-2)).toEqual(['0/0/done', '0/0/done']);
  });
});
