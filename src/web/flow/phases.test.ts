import { describe, expect, it } from 'vitest';
import { initialFlowState, statusOf, transition, type FlowEvent, type FlowState } from './phases.js';

const run = (events: FlowEvent[], from: FlowState = initialFlowState()) => events.reduce(transition, from);
const loaded = (visualTests = false, consentForm = false): FlowEvent => ({ type: 'JOB_LOADED', config: { visualTests, consentForm } });

describe('phase machine', () => {
  it('runs the plain journey Landing → Eligibility → Instruction → Loading → Test → Result', () => {
    const seen: string[] = [];
    let s = initialFlowState();
    for (const e of [loaded(), { type: 'ELIGIBILITY_PASSED' }, { type: 'PLAYLIST_LOADED', hasTraining: false, resumeAt: 0 }, { type: 'WELCOME_DONE' }, { type: 'INSTRUCTIONS_DONE' }, { type: 'LOADING_DONE' }, { type: 'TEST_DONE' }] as FlowEvent[]) {
      s = transition(s, e);
      seen.push(`${s.phase}:${statusOf(s)}`);
    }
    expect(seen).toEqual([
      'Eligibility:checks',
      'Instruction:welcome',
      'Instruction:welcome',
      'Instruction:instructions',
      'Loading:test',
      'Test:test',
      'Result:ok',
    ]);
  });

  it('fails on a job error from Landing', () => {
    const s = run([{ type: 'JOB_FAILED' }]);
    expect(s.phase).toBe('Fail');
    expect(s.failReason).toBe('server');
  });

  it('goes to FailEligibility when a check fails, and stays there', () => {
    const s = run([loaded(), { type: 'ELIGIBILITY_FAILED' }, { type: 'ELIGIBILITY_PASSED' }, { type: 'ALREADY_COMPLETED' }]);
    expect(s.phase).toBe('FailEligibility');
  });

  it('ends on its own screen for a paused, a closed and a not yet opened (draft) study', () => {
    const reasons = (['paused', 'closed', 'draft'] as const).map((status) => run([loaded(), { type: 'STUDY_NOT_OPEN', status }]).failReason);
    expect(reasons).toEqual(['studyPaused', 'studyClosed', 'studyNotOpenYet']);
  });

  it('runs the visual tests after the checks when the job asks for them', () => {
    const s1 = run([loaded(true), { type: 'ELIGIBILITY_PASSED' }]);
    expect([s1.phase, s1.eligibilityStep]).toEqual(['Eligibility', 'visual']);
    expect(run([{ type: 'VISUAL_PASSED' }], s1).phase).toBe('Instruction');
    expect(run([{ type: 'VISUAL_FAILED' }], s1).phase).toBe('FailEligibility');
    // A visual-test event while the checks are shown is ignored.
    expect(run([loaded(true), { type: 'VISUAL_PASSED' }]).phase).toBe('Eligibility');
  });

  it('routes the lab welcome with an email to the consent form', () => {
    const s = run([loaded(false, true), { type: 'ELIGIBILITY_PASSED' }, { type: 'WELCOME_DONE' }]);
    expect(s.instructionStep).toBe('consent');
    expect(run([{ type: 'INSTRUCTIONS_DONE' }], s).instructionStep).toBe('consent');
    expect(run([{ type: 'CONSENT_DONE' }], s).instructionStep).toBe('instructions');
  });

  it('waits for the playlist before leaving the instructions', () => {
    const s = run([loaded(), { type: 'ELIGIBILITY_PASSED' }, { type: 'WELCOME_DONE' }, { type: 'INSTRUCTIONS_DONE' }]);
    expect(s.phase).toBe('Instruction');
    expect(run([{ type: 'PLAYLIST_LOADED', hasTraining: false, resumeAt: 0 }, { type: 'INSTRUCTIONS_DONE' }], s).phase).toBe('Loading');
  });

  it('runs training first, then the test instructions again with training finished', () => {
    let s = run([loaded(), { type: 'ELIGIBILITY_PASSED' }, { type: 'PLAYLIST_LOADED', hasTraining: true, resumeAt: 0 }, { type: 'WELCOME_DONE' }, { type: 'INSTRUCTIONS_DONE' }]);
    expect([s.phase, s.training, statusOf(s)]).toEqual(['Loading', 'running', 'training']);
    s = run([{ type: 'LOADING_DONE' }, { type: 'TEST_DONE' }], s);
    expect([s.phase, s.instructionStep, s.training, statusOf(s)]).toEqual(['Instruction', 'instructions', 'finished', 'instructions-after-training']);
    s = run([{ type: 'INSTRUCTIONS_DONE' }, { type: 'LOADING_DONE' }], s);
    expect([s.phase, statusOf(s)]).toEqual(['Test', 'test']);
    expect(run([{ type: 'TEST_DONE' }], s).phase).toBe('Result');
  });

  it('a resumed session with answers goes from the eligibility checks to the test instructions, without training', () => {
    const s = run([loaded(), { type: 'PLAYLIST_LOADED', hasTraining: true, resumeAt: 2 }, { type: 'ELIGIBILITY_PASSED' }]);
    expect([s.phase, s.instructionStep, s.training, s.resumeAt]).toEqual(['Instruction', 'instructions', 'none', 2]);
    expect(run([{ type: 'INSTRUCTIONS_DONE' }, { type: 'LOADING_DONE' }], s).phase).toBe('Test');
    // The playlist answering after Continue was clicked: the welcome (or visual tests) give way to the instructions.
    const late = run([loaded(), { type: 'ELIGIBILITY_PASSED' }, { type: 'PLAYLIST_LOADED', hasTraining: false, resumeAt: 1 }]);
    expect([late.phase, late.instructionStep]).toEqual(['Instruction', 'instructions']);
    // A session resumed before its first answer starts over.
    const fresh = run([loaded(), { type: 'PLAYLIST_LOADED', hasTraining: true, resumeAt: 0 }, { type: 'ELIGIBILITY_PASSED' }]);
    expect([fresh.instructionStep, fresh.training]).toEqual(['welcome', 'pending']);
  });

  it('ends on the study-full screen when the playlist call says every playlist has its observers', () => {
    const s = run([loaded(), { type: 'ELIGIBILITY_PASSED' }, { type: 'STUDY_FULL' }]);
    expect([s.phase, s.failReason, statusOf(s)]).toEqual(['Fail', 'studyFull', 'studyFull']);
  });

  it('shows already-completed from any live phase, and the playlist answer only once', () => {
    const s = run([loaded(), { type: 'ELIGIBILITY_PASSED' }, { type: 'ALREADY_COMPLETED' }]);
    expect([s.phase, s.failReason, statusOf(s)]).toEqual(['Fail', 'alreadyCompleted', 'alreadyCompleted']);
    const t = run([loaded(), { type: 'PLAYLIST_LOADED', hasTraining: true, resumeAt: 0 }, { type: 'PLAYLIST_LOADED', hasTraining: false, resumeAt: 0 }]);
    expect(t.training).toBe('pending');
  });

  it('ignores events that do not apply (same object back)', () => {
    const s = initialFlowState();
    expect(transition(s, { type: 'LOADING_DONE' })).toBe(s);
    expect(transition(s, { type: 'TEST_DONE' })).toBe(s);
    const result = run([loaded(), { type: 'ELIGIBILITY_PASSED' }, { type: 'PLAYLIST_LOADED', hasTraining: false, resumeAt: 0 }, { type: 'WELCOME_DONE' }, { type: 'INSTRUCTIONS_DONE' }, { type: 'LOADING_DONE' }, { type: 'TEST_DONE' }]);
    expect(transition(result, { type: 'CONFIG_INCOMPATIBLE' })).toBe(result);
  });

  it('fails with the incompatible-configuration reason', () => {
    const s = run([loaded(), { type: 'CONFIG_INCOMPATIBLE' }]);
    expect([s.phase, s.failReason]).toEqual(['Fail', 'config']);
  });
});
