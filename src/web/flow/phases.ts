import type { ConsentBody } from '../../contract/payloads.js';

/**
 * The session phases of SPEC §4 as a pure state machine: `transition(state, event)` returns the next state
 * (the same object when the event does not apply). No I/O here; the store runs the effects.
 *
 *   Landing ──JOB_LOADED──▶ Eligibility(checks) ──ELIGIBILITY_PASSED──▶ [Eligibility(visual)] ──▶ Instruction(welcome)
 *      │                         │ ELIGIBILITY_FAILED / VISUAL_FAILED ──▶ FailEligibility
 *      └─JOB_FAILED──▶ Fail(server)
 *   Instruction(welcome) ──WELCOME_DONE──▶ [Instruction(consent) ──CONSENT_DONE──▶] Instruction(instructions)
 *   Instruction(instructions) ──INSTRUCTIONS_DONE──▶ Loading ──LOADING_DONE──▶ Test ──TEST_DONE──▶ Result
 *   (with a training set: the first Test is the training; TEST_DONE then leads back to Instruction(instructions)
 *    with training finished, and a second Loading/Test runs the real test.)
 *   A resumed session with answers stored (PLAYLIST_LOADED resumeAt > 0) skips the welcome, consent, visual tests
 *   and training: it goes from the eligibility checks to Instruction(instructions), then tests from resumeAt.
 *   Any non-terminal phase ──ALREADY_COMPLETED──▶ Fail(alreadyCompleted); ──STUDY_FULL──▶ Fail(studyFull);
 *   ──PLAYLIST_FAILED / CONFIG_INCOMPATIBLE──▶ Fail
 */

export const PHASES = ['Landing', 'Fail', 'Eligibility', 'FailEligibility', 'Instruction', 'Loading', 'Test', 'Result'] as const;
export type Phase = (typeof PHASES)[number];

/** The phases after which nothing happens; reaching one sends the session logs (SPEC §4). */
export const TERMINAL_PHASES: readonly Phase[] = ['Fail', 'FailEligibility', 'Result'];

export type FailReason = 'server' | 'config' | 'alreadyCompleted' | 'studyFull' | 'studyPaused' | 'studyClosed' | 'studyNotOpenYet';
export type EligibilityStep = 'checks' | 'visual';
export type InstructionStep = 'welcome' | 'consent' | 'instructions';
/** unknown: the playlist has not answered yet; none: no training set. */
export type Training = 'unknown' | 'none' | 'pending' | 'running' | 'finished';

export interface FlowConfig {
  /** The job asks for visual tests (acuity/colour) after the eligibility checks. */
  visualTests: boolean;
  /** Lab platform with an email query parameter: the French consent form follows the welcome. */
  consentForm: boolean;
}

export interface FlowState {
  phase: Phase;
  eligibilityStep: EligibilityStep;
  instructionStep: InstructionStep;
  failReason: FailReason | null;
  training: Training;
  config: FlowConfig;
  /**
   * Index of the first test stimulus still to answer: above 0 when the participant's session was resumed with
   * answers stored (a reload, a second tab). Such a participant goes straight to the instructions and on from there.
   */
  resumeAt: number;
}

export type FlowEvent =
  | { type: 'JOB_LOADED'; config: FlowConfig }
  | { type: 'JOB_FAILED' }
  | { type: 'CONFIG_INCOMPATIBLE' }
  | { type: 'ELIGIBILITY_PASSED' }
  | { type: 'ELIGIBILITY_FAILED' }
  | { type: 'VISUAL_PASSED' }
  | { type: 'VISUAL_FAILED' }
  | { type: 'PLAYLIST_LOADED'; hasTraining: boolean; resumeAt: number }
  | { type: 'PLAYLIST_FAILED' }
  | { type: 'ALREADY_COMPLETED' }
  /** Every playlist has its target of accepted observers (docs/quality.md): no session is given. */
  | { type: 'STUDY_FULL' }
  /** The researcher paused or closed the study, or has not opened it yet (a draft; docs/console.md): no new session. */
  | { type: 'STUDY_NOT_OPEN'; status: 'paused' | 'closed' | 'draft' }
  | { type: 'WELCOME_DONE' }
  /** The consent form was filled in (the journey posts it, then CONSENT_DONE follows whatever the answer). */
  | { type: 'CONSENT_SIGNED'; form: ConsentBody }
  | { type: 'CONSENT_DONE' }
  | { type: 'INSTRUCTIONS_DONE' }
  | { type: 'LOADING_DONE' }
  | { type: 'TEST_DONE' };

export function initialFlowState(): FlowState {
  return {
    phase: 'Landing',
    eligibilityStep: 'checks',
    instructionStep: 'welcome',
    failReason: null,
    training: 'unknown',
    config: { visualTests: false, consentForm: false },
    resumeAt: 0,
  };
}

export function isTerminal(phase: Phase): boolean {
  return TERMINAL_PHASES.includes(phase);
}

/** True while the test being run (or about to be loaded) is the training set. */
export function inTraining(state: FlowState): boolean {
  return state.training === 'running';
}

const NOT_OPEN_REASON = { paused: 'studyPaused', closed: 'studyClosed', draft: 'studyNotOpenYet' } as const satisfies Record<string, FailReason>;

export function transition(state: FlowState, event: FlowEvent): FlowState {
  if (isTerminal(state.phase)) return state;
  const fail = (failReason: FailReason): FlowState => ({ ...state, phase: 'Fail', failReason });
  switch (event.type) {
    case 'ALREADY_COMPLETED':
      return fail('alreadyCompleted');
    case 'STUDY_FULL':
      return fail('studyFull');
    case 'STUDY_NOT_OPEN':
      return fail(NOT_OPEN_REASON[event.status]);
    case 'PLAYLIST_FAILED':
      return fail('server');
    case 'CONFIG_INCOMPATIBLE':
      return fail('config');
    case 'PLAYLIST_LOADED': {
      if (state.training !== 'unknown') return state;
      if (event.resumeAt === 0) return { ...state, training: event.hasTraining ? 'pending' : 'none' };
      // Resumed with answers stored: no second welcome, consent form, visual test nor training.
      const resumed: FlowState = { ...state, training: 'none', resumeAt: event.resumeAt };
      const beforeInstructions = (state.phase === 'Instruction' && state.instructionStep !== 'instructions') || (state.phase === 'Eligibility' && state.eligibilityStep === 'visual');
      return beforeInstructions ? { ...resumed, phase: 'Instruction', instructionStep: 'instructions' } : resumed;
    }
    default:
      return transitionInPhase(state, event);
  }
}

function transitionInPhase(state: FlowState, event: FlowEvent): FlowState {
  const to = (phase: Phase, patch: Partial<FlowState> = {}): FlowState => ({ ...state, ...patch, phase });
  switch (state.phase) {
    case 'Landing':
      if (event.type === 'JOB_LOADED') return to('Eligibility', { config: event.config, eligibilityStep: 'checks' });
      if (event.type === 'JOB_FAILED') return to('Fail', { failReason: 'server' });
      return state;
    case 'Eligibility':
      if (event.type === 'ELIGIBILITY_FAILED' && state.eligibilityStep === 'checks') return to('FailEligibility');
      if (event.type === 'VISUAL_FAILED' && state.eligibilityStep === 'visual') return to('FailEligibility');
      if (event.type === 'ELIGIBILITY_PASSED' && state.eligibilityStep === 'checks') {
        if (state.resumeAt > 0) return to('Instruction', { instructionStep: 'instructions' });
        return state.config.visualTests ? to('Eligibility', { eligibilityStep: 'visual' }) : to('Instruction', { instructionStep: 'welcome' });
      }
      if (event.type === 'VISUAL_PASSED' && state.eligibilityStep === 'visual') return to('Instruction', { instructionStep: 'welcome' });
      return state;
    case 'Instruction':
      return instructionTransition(state, event);
    case 'Loading':
      return event.type === 'LOADING_DONE' ? to('Test') : state;
    case 'Test':
      if (event.type !== 'TEST_DONE') return state;
      // End of the training: the test instructions follow with training marked finished (SPEC §4).
      if (state.training === 'running') return to('Instruction', { instructionStep: 'instructions', training: 'finished' });
      return to('Result');
    default:
      return state;
  }
}

function instructionTransition(state: FlowState, event: FlowEvent): FlowState {
  switch (event.type) {
    case 'WELCOME_DONE':
      if (state.instructionStep !== 'welcome') return state;
      return { ...state, instructionStep: state.config.consentForm ? 'consent' : 'instructions' };
    case 'CONSENT_DONE':
      return state.instructionStep === 'consent' ? { ...state, instructionStep: 'instructions' } : state;
    case 'INSTRUCTIONS_DONE':
      // The button waits for the playlist: without it we cannot know whether a training set comes first.
      if (state.instructionStep !== 'instructions' || state.training === 'unknown') return state;
      return { ...state, phase: 'Loading', training: state.training === 'pending' ? 'running' : state.training };
    default:
      return state;
  }
}

/** The status logged with each state (SPEC §3 "State entries: state, status, time"). */
export function statusOf(state: FlowState): string {
  switch (state.phase) {
    case 'Eligibility':
      return state.eligibilityStep;
    case 'Instruction':
      return state.instructionStep === 'instructions' && state.training === 'finished' ? 'instructions-after-training' : state.instructionStep;
    case 'Loading':
    case 'Test':
      return state.training === 'running' ? 'training' : 'test';
    case 'Fail':
      return state.failReason ?? 'server';
    default:
      return 'ok';
  }
}
