import { describe, expect, it } from 'vitest';
import type { PresentationRecordBody, TimingEnvelope } from '../contract/payloads.js';
import type { StimulusCheck } from '../contract/quality.js';
import { evaluateSession, exclusionReasons, exposureFault, rejectionReasons, trialMs, visualTestsOutcome, withVisualTests, type RuleName, type ScreenedAnswer, type SessionEvidence } from './rules.js';
import { exposureInWords, reasonInWords, RULE_KIND, RULE_WORDS } from './reasons.js';
import { qualitySummary } from './summary.js';

const size = { width: 1280, height: 720 };
function step(overrides: Partial<PresentationRecordBody> = {}): PresentationRecordBody {
  return { label: 'stimulus', media: ['a.png'], requestedFrames: 60, shownFrames: 60, onsetMs: 1000, offsetMs: 2000, droppedFrames: 0, refreshMs: 16.667, endedBy: 'duration', ...overrides };
}
function envelope(overrides: Partial<TimingEnvelope> = {}, steps: PresentationRecordBody[] = [step()]): TimingEnvelope {
  return {
    v: 2,
    plays: [steps],
    refreshMs: 16.667,
    timeOrigin: 1_700_000_000_000,
    answeredMs: 3500,
    window: { inner: size, outer: size, screen: size, available: size, document: size, zoom: 1, isfullScreen: true },
    ...overrides,
  };
}

let nextId = 1;
/** A rated answer of a rating scale: `stimulus` scored `score`, shown well, answered 2.5 s after its onset. */
function rated(stimulus: string, score: number, extra: Partial<ScreenedAnswer> = {}): ScreenedAnswer {
  return { stimulusId: nextId++, value: 5 - score, rating: { stimulus, score }, check: null, checkPassed: null, timing: envelope(), ...extra };
}
function checked(kind: StimulusCheck['kind'], passed: boolean, score = 4): ScreenedAnswer {
  return rated(`check-${kind}`, score, { check: { kind, answer: 4, tolerance: kind === 'gold' ? 1 : undefined }, checkPassed: passed });
}
/** Varied careful ratings of five stimuli. */
const careful = () => [rated('s1', 1), rated('s2', 2), rated('s3', 3), rated('s4', 4), rated('s5', 5)];
function evidence(answers: ScreenedAnswer[], extra: Partial<SessionEvidence> = {}): SessionEvidence {
  return { answers, fullscreenRequired: false, visualTestsRequired: false, visualTestsPassed: null, mos: null, ...extra };
}
const status = (e: SessionEvidence, rule: RuleName, rules = {}) => evaluateSession(e, rules).outcomes.find((o) => o.rule === rule)!;

describe('session acceptance rules', () => {
  it('accepts a careful session: every rule passed or not applicable', () => {
    const verdict = evaluateSession(evidence([...careful(), checked('gold', true), checked('trap', true)]));
    expect(verdict).toMatchObject({ approved: true, included: true });
    expect(exclusionReasons(verdict)).toEqual([]);
    expect(Object.fromEntries(verdict.outcomes.map((o) => [o.rule, o.status]))).toEqual({
      gold: 'passed',
      traps: 'passed',
      attention: 'not applicable',
      minVariance: 'passed',
      minCorrelation: 'not applicable',
      minTrialMs: 'passed',
      shownToEnd: 'passed',
      maxMistimedShare: 'passed',
      fullscreen: 'not applicable',
      visualTests: 'not applicable',
      minInspection: 'not applicable',
    });
  });

  it('gold: a gold answer outside its tolerance rejects, naming the stimulus and the answer', () => {
    const gold = checked('gold', false, 1);
    const outcome = status(evidence([...careful(), gold]), 'gold');
    expect(outcome.status).toBe('failed');
    // Without the protocol's labels (src/server/quality gives them), both sides are on the reporting scale.
    expect(outcome.detail).toBe(`1 of 1 stimulus missed: stimulus ${gold.stimulusId}: answered 1, expected 4 ± 1`);
    expect(status(evidence([...careful(), gold]), 'gold', { gold: false }).status).toBe('not applicable');
  });

  it('traps and attention checks: each wrong answer rejects on its own rule', () => {
    const e = evidence([...careful(), checked('trap', false), checked('attention', false), checked('attention', true)]);
    expect(status(e, 'traps')).toMatchObject({ status: 'failed' });
    expect(status(e, 'attention').detail).toMatch(/^1 of 2 stimuli missed/);
    expect(status(e, 'gold').status).toBe('not applicable');
  });

  it('minVariance: straight-lining (every rating the same) rejects; population variance against 0.15', () => {
    const flat = evidence([rated('s1', 3), rated('s2', 3), rated('s3', 3), rated('s4', 3)]);
    expect(status(flat, 'minVariance')).toEqual({ rule: 'minVariance', status: 'failed', detail: 'variance 0 of 4 ratings (minimum 0.15)', facts: { key: 'variance', variance: 0, ratings: 4, minimum: 0.15 } });
    // 3,3,3,4: mean 3.25, population variance 0.1875 ≥ 0.15; 3,3,3,3,3,3,3,4 gives 0.109 < 0.15.
    expect(status(evidence([rated('a', 3), rated('b', 3), rated('c', 3), rated('d', 4)]), 'minVariance').status).toBe('passed');
    expect(status(evidence([...'abcdefg'].map((s) => rated(s, 3)).concat(rated('h', 4))), 'minVariance').detail).toBe('variance 0.109 of 8 ratings (minimum 0.15)');
    // Check answers do not count: a straight-liner cannot pass on the gold stimulus's different score.
    expect(status(evidence([...'abcd'].map((s) => rated(s, 3)).concat(checked('gold', true, 5))), 'minVariance').status).toBe('failed');
    expect(status(evidence([...'abcd'].map((s) => rated(s, 3))), 'minVariance', { minVariance: false }).status).toBe('not applicable');
    // Two or three alike answers are no sign of straight-lining: the rule needs 4 ratings (varianceAfterRatings).
    expect(status(evidence([rated('s1', 3), rated('s2', 3), rated('s3', 3)]), 'minVariance')).toMatchObject({ status: 'not applicable', detail: '3 ratings, the rule needs 4' });
    expect(status(evidence([rated('s1', 3), rated('s2', 3)]), 'minVariance', { varianceAfterRatings: 2 }).status).toBe('failed');
  });

  it('minVariance and minCorrelation do not apply to choices', () => {
    const choice: ScreenedAnswer = { stimulusId: 1, value: 0, rating: null, check: null, checkPassed: null, timing: envelope() };
    expect(status(evidence([choice, { ...choice, stimulusId: 2 }]), 'minVariance').detail).toBe('not a rating scale');
    expect(status(evidence([choice]), 'minCorrelation').detail).toBe('not a rating scale');
  });

  it('minCorrelation: applies once enough other sessions exist, against their MOS', () => {
    const mos = new Map([['s1', 1.2], ['s2', 2.1], ['s3', 2.9], ['s4', 4.2], ['s5', 4.8]]);
    const agreeing = evidence(careful(), { mos: { sessions: 12, byStimulus: mos } });
    expect(status(agreeing, 'minCorrelation').status).toBe('passed');
    const reversed = evidence([rated('s1', 5), rated('s2', 4), rated('s3', 3), rated('s4', 2), rated('s5', 1)], { mos: { sessions: 12, byStimulus: mos } });
    const outcome = status(reversed, 'minCorrelation');
    expect(outcome.status).toBe('failed');
    expect(outcome.detail).toMatch(/^Pearson r -0\.99\d with the MOS of 12 other sessions over 5 stimuli \(minimum 0\.7\)$/);
    expect(status(evidence(careful(), { mos: { sessions: 9, byStimulus: mos } }), 'minCorrelation').detail).toBe('9 other accepted sessions, the rule needs 10');
    expect(status(reversed, 'minCorrelation', { correlationAfterSessions: 13 }).status).toBe('not applicable');
    expect(status(reversed, 'minCorrelation', { minCorrelation: -1 }).status).toBe('passed');
  });

  it('shownToEnd: a media error, an aborted last play or a missing timing record rejects', () => {
    const error = rated('s6', 2, { timing: envelope({ mediaError: 'b.mp4 could not be shown' }) });
    expect(status(evidence([...careful(), error]), 'shownToEnd').detail).toBe(`1 of 6 answers not shown to the end: stimulus ${error.stimulusId}: media error (b.mp4 could not be shown)`);
    const aborted = rated('s6', 2, { timing: envelope({}, [step({ endedBy: 'abort', shownFrames: 20 })]) });
    expect(status(evidence([...careful(), aborted]), 'shownToEnd').detail).toContain('presentation aborted');
    // An aborted play followed by a whole replay is fine: only the last play counts.
    const replayed = rated('s6', 2, { timing: { ...envelope(), plays: [[step({ endedBy: 'abort' })], [step()]] } });
    expect(status(evidence([...careful(), replayed]), 'shownToEnd').status).toBe('passed');
    expect(status(evidence([...careful(), rated('s6', 2, { timing: null })]), 'shownToEnd').detail).toContain('no timing record');
  });

  it('maxMistimedShare: more than 10 % of answers whose exposure is off excludes from the analysis, never rejects', () => {
    const late = (s: string) => rated(s, 2, { timing: envelope({}, [step({ shownFrames: 58, droppedFrames: 2 })]) });
    const ten = [...careful(), ...careful(), late('x')]; // 1 of 11: 9.1 %
    expect(status(evidence(ten), 'maxMistimedShare')).toMatchObject({ status: 'passed' });
    expect(status(evidence(ten), 'maxMistimedShare').detail).toMatch(/^1 of 11 timed answers mistimed \(9\.1 %, maximum 10 %\): stimulus \d+: stimulus: 58 of 60 frames \(± 1 allowed\)$/);
    const verdict = evaluateSession(evidence([...ten, late('y')]));
    expect(verdict).toMatchObject({ approved: true, included: false });
    expect(rejectionReasons(verdict)).toEqual([]);
    expect(exclusionReasons(verdict)[0]).toMatch(/^Stimuli shown for the wrong duration on this device \(2 of 12 timed answers mistimed/);
    expect(status(evidence([late('x')]), 'maxMistimedShare', { maxMistimedShare: 1 }).status).toBe('passed');
  });

  it('exposure: only duration-ended steps count; ± 1 frame on a long step, exact on a short one', () => {
    const t = { exposureToleranceFrames: 1, exactExposureBelowFrames: 10, maxDroppedFrames: 1 };
    const exposureError = (s: PresentationRecordBody, tolerance: typeof t | (Omit<typeof t, 'maxDroppedFrames'> & { maxDroppedFrames: false })) => {
      const fault = exposureFault(s, tolerance);
      return fault && exposureInWords(fault);
    };
    expect(exposureError(step({ shownFrames: 61 }), t)).toBeNull();
    expect(exposureError(step({ shownFrames: 59 }), t)).toBeNull();
    expect(exposureError(step({ shownFrames: 62 }), t)).toBe('stimulus: 62 of 60 frames (± 1 allowed)');
    expect(exposureError(step({ requestedFrames: 6, shownFrames: 7 }), t)).toBe('stimulus: 7 of 6 frames (exact allowed)');
    expect(exposureError(step({ requestedFrames: 6, shownFrames: 6 }), t)).toBeNull();
    expect(exposureError(step({ droppedFrames: 1 }), t)).toBeNull();
    expect(exposureError(step({ droppedFrames: 3 }), t)).toBe('stimulus: 3 dropped frames (at most 1)');
    // By default dropped frames of a still image count only through the offset they move.
    expect(exposureError(step({ droppedFrames: 9 }), { ...t, maxDroppedFrames: false })).toBeNull();
    expect(status(evidence([rated('s', 1, { timing: envelope({}, [step({ droppedFrames: 9 })]) })]), 'maxMistimedShare').status).toBe('passed');
    // A face held until the answer, a click, a video's end: their length is the participant's or the media's, not the exposure.
    expect(exposureError(step({ endedBy: 'answer', requestedFrames: null, shownFrames: 400, droppedFrames: 40 }), t)).toBeNull();
    expect(exposureError(step({ endedBy: 'click', shownFrames: 12, droppedFrames: 5 }), t)).toBeNull();
    expect(exposureError(step({ endedBy: 'video-end', requestedFrames: null, shownFrames: 61, droppedFrames: 9 }), t)).toBeNull();
    // A session whose only steps are holds has nothing timed: the rule does not apply.
    const held = rated('s', 1, { timing: envelope({}, [step({ endedBy: 'answer', requestedFrames: null, droppedFrames: 30 })]) });
    expect(status(evidence([held]), 'maxMistimedShare')).toMatchObject({ status: 'not applicable', detail: 'no step timed by its duration' });
  });

  it('payment rules reject and exclude; technical rules only exclude; every rule has words in English and French', () => {
    expect(Object.entries(RULE_KIND).filter(([, kind]) => kind === 'payment').map(([rule]) => rule)).toEqual(['gold', 'traps', 'attention', 'minVariance', 'minCorrelation', 'minTrialMs']);
    // Sentences, not code names: capitalised, several words, no camelCase.
    for (const words of Object.values(RULE_WORDS)) {
      for (const text of [words.en, words.fr]) expect(text).toMatch(/^[A-ZÉ][^A-Z]* [^A-Z]*$/);
    }
    const error = rated('s6', 2, { timing: envelope({ mediaError: 'b.mp4 could not be shown' }) });
    expect(evaluateSession(evidence([...careful(), error]))).toMatchObject({ approved: true, included: false });
    const fast = rated('s6', 2, { timing: envelope({ answeredMs: 1300 }) });
    expect(evaluateSession(evidence([...careful(), fast]))).toMatchObject({ approved: false, included: false });
  });

  it('maxMistimedShare: a video whose clip frames the stage skipped or repeated is mistimed, by the stage\'s count', () => {
    const clip = { media: 'v.mp4', timing: 'stage-clock' as const, frames: 75, drawnFrames: 75, skippedFrames: 0, repeatedFrames: 0, firstFrame: 0, firstOnsetMs: 1000, lastFrame: 74, lastOnsetMs: 3990, lastOffsetMs: 4000 };
    const video = (videos: PresentationRecordBody['videos']) => rated('v', 3, { timing: envelope({}, [step({ media: ['v.mp4'], requestedFrames: null, shownFrames: 180, endedBy: 'video-end', videos })]) });
    expect(status(evidence([video([clip])]), 'maxMistimedShare').status).toBe('passed');
    expect(status(evidence([video([{ ...clip, drawnFrames: 73, skippedFrames: 2, repeatedFrames: 2 }])]), 'maxMistimedShare')).toMatchObject({ status: 'failed', detail: '1 of 1 timed answer mistimed (100 %, maximum 10 %): stimulus 124: stimulus: 2 clip frames skipped, 2 repeated beyond the cadence' });
    // The element's own counter (a page before the stage counted frames) is not evidence either way.
    expect(status(evidence([video([{ media: 'v.mp4', presentedFrames: 40 }])]), 'maxMistimedShare').status).toBe('not applicable');
  });

  it('fullscreen: required by the job, every answer in fullscreen', () => {
    const windowed = rated('s6', 2, { timing: envelope({ window: { ...envelope().window, isfullScreen: false } }) });
    expect(status(evidence([...careful(), windowed]), 'fullscreen').status).toBe('not applicable');
    expect(status(evidence([...careful(), windowed], { fullscreenRequired: true }), 'fullscreen')).toMatchObject({ status: 'failed', detail: '1 of 6 answers given outside fullscreen' });
    expect(status(evidence(careful(), { fullscreenRequired: true }), 'fullscreen').status).toBe('passed');
  });

  it('minTrialMs: an answer faster than 500 ms after the first onset rejects', () => {
    expect(trialMs(envelope({ answeredMs: 1300 }))).toBe(300);
    const fast = rated('s6', 2, { timing: envelope({ answeredMs: 1300 }) });
    expect(status(evidence([...careful(), fast]), 'minTrialMs').detail).toBe(`1 of 6 answers faster than 500 ms: stimulus ${fast.stimulusId} in 300 ms`);
    expect(status(evidence(careful()), 'minTrialMs').detail).toBe('fastest answer 2500 ms (minimum 500 ms)');
    expect(status(evidence([rated('s', 1, { timing: envelope({ answeredMs: undefined }) })]), 'minTrialMs').status).toBe('not applicable');
  });

  it('visualTests: read from the logged state changes', () => {
    const passed = [{ state: 'Eligibility', status: 'checks' }, { state: 'Eligibility', status: 'visual' }, { state: 'Instruction', status: 'welcome' }];
    const failed = [{ state: 'Eligibility', status: 'visual' }, { state: 'FailEligibility', status: 'ok' }];
    expect(visualTestsOutcome(passed)).toBe(true);
    expect(visualTestsOutcome(failed)).toBe(false);
    expect(visualTestsOutcome([{ state: 'Instruction', status: 'welcome' }])).toBe(null);
    expect(status(evidence(careful(), { visualTestsRequired: true, visualTestsPassed: true }), 'visualTests').status).toBe('passed');
    expect(status(evidence(careful(), { visualTestsRequired: true, visualTestsPassed: null }), 'visualTests').detail).toBe('no session log shows the visual tests passed');
    expect(status(evidence(careful(), { visualTestsRequired: false, visualTestsPassed: null }), 'visualTests').status).toBe('not applicable');
  });

  it('visualTests: logs that arrive after the verdict revise that outcome alone', () => {
    const before = evaluateSession(evidence(careful(), { visualTestsRequired: true, visualTestsPassed: null }));
    expect(before).toMatchObject({ approved: true, included: false });
    const after = withVisualTests(before, { visualTestsRequired: true, visualTestsPassed: true })!;
    expect(after).toMatchObject({ approved: true, included: true });
    expect(after.outcomes.filter((o, i) => o !== before.outcomes[i]).map((o) => [o.rule, o.status])).toEqual([['visualTests', 'passed']]);
    // The same logs again change nothing; logs showing a failure exclude again.
    expect(withVisualTests(after, { visualTestsRequired: true, visualTestsPassed: true })).toBe(null);
    expect(withVisualTests(after, { visualTestsRequired: true, visualTestsPassed: false })).toMatchObject({ approved: true, included: false });
    expect(withVisualTests(after, { visualTestsRequired: true, visualTestsPassed: false }, { visualTests: false })!.outcomes.find((o) => o.rule === 'visualTests')!.status).toBe('not applicable');
  });

  it('a straight-liner who misses the trap is rejected with exactly those two reasons', () => {
    const verdict = evaluateSession(evidence([rated('s1', 3), rated('s2', 3), rated('s3', 3), rated('s4', 3), checked('trap', false, 3)]));
    expect(verdict).toMatchObject({ approved: false, included: false });
    expect(verdict.outcomes.filter((o) => o.status === 'failed').map((o) => o.rule)).toEqual(['traps', 'minVariance']);
    const trap = verdict.outcomes.find((o) => o.rule === 'traps')!;
    expect(rejectionReasons(verdict)).toEqual([
      `Missed a question that said what to answer (${trap.detail})`,
      'Gave (almost) the same answer to every question (variance 0 of 4 ratings (minimum 0.15))',
    ]);
  });
});

describe('reasons in the reader\'s language', () => {
  const NBSP = '\u00a0';
  const NNBSP = '\u202f';

  it('quotes a check\'s answer by the label the participant saw, in English and French ("answered Excellent, expected Bad")', () => {
    // ACR: stored index 0 is Excellent (score 5); the trap's answer 1 is Bad. The labels come from the protocol.
    const trap = rated('trap', 5, { check: { kind: 'trap', answer: 1 }, checkPassed: false, quoted: { answered: { label: 'acrExcellent' }, expected: { label: 'acrBad' } } });
    const outcome = status(evidence([...careful(), trap]), 'traps');
    expect(outcome.detail).toBe(`1 of 1 stimulus missed: stimulus ${trap.stimulusId}: answered Excellent, expected Bad`);
    expect(reasonInWords(outcome, 'en')).toBe(`Missed a question that said what to answer (1 of 1 stimulus missed: stimulus ${trap.stimulusId}: answered Excellent, expected Bad)`);
    // French: the participant's French labels, French punctuation spacing, curly apostrophes.
    expect(reasonInWords(outcome, 'fr')).toBe(`Question indiquant la réponse à donner manquée (1 stimulus sur 1 manqué${NBSP}: stimulus ${trap.stimulusId}${NBSP}: répondu Excellente, attendu Mauvaise)`);
  });

  it('words every measured detail in French, with French numbers and spacing', () => {
    const fast = rated('s5', 3, { timing: envelope({ answeredMs: 1300 }) });
    const verdict = evaluateSession(evidence([rated('s1', 3), rated('s2', 3), rated('s3', 3), rated('s4', 3), fast]));
    const [variance, tooFast] = verdict.outcomes.filter((o) => o.status === 'failed').map((o) => reasonInWords(o, 'fr'));
    expect(variance).toBe('A donné (presque) la même réponse à chaque question (variance 0 de 5 notes (minimum 0,15))');
    expect(tooFast).toBe(`Réponses trop rapides pour avoir regardé les stimuli (1 réponse sur 5 en moins de 500 ms${NBSP}: stimulus ${fast.stimulusId} en 300 ms)`);
    const late = rated('x', 3, { timing: envelope({}, [step({ shownFrames: 58 })]) });
    expect(reasonInWords(status(evidence([late]), 'maxMistimedShare'), 'fr')).toBe(
      `Stimuli montrés pendant une durée inexacte sur cet appareil (1 réponse minutée sur 1 mal minutée (100${NNBSP}%, maximum 10${NNBSP}%)${NBSP}: stimulus ${late.stimulusId}${NBSP}: stimulus${NBSP}: 58 images pour 60 (± 1 permis))`,
    );
  });

  it('shows a verdict stored before its facts were kept as its English detail', () => {
    expect(reasonInWords({ rule: 'traps', detail: 'stimulus 206 (expected 1, answered 5)' }, 'fr')).toBe('Question indiquant la réponse à donner manquée (stimulus 206 (expected 1, answered 5))');
  });
});

describe('minimum inspection of 3D objects', () => {
  /** An inspect-mode answer: poses every 100 ms for `ms`, turning evenly through `degrees` of azimuth. */
  const inspected = (ms: number, degrees: number) => {
    const n = ms / 100;
    return rated(`object-${nextId}`, 3, { views: { mode: 'inspect', samples: Array.from({ length: n }, (_, i) => ({ play: 0, t: i * 100, az: (degrees * i) / (n - 1), el: 10, dist: 1 })) } });
  };
  const rule = { minInspection: { ms: 3000, azimuthDeg: 90 } };

  it('is off unless the study sets it, and not applicable without inspected objects', () => {
    const session = evidence([...careful(), inspected(500, 10)]);
    expect(status(session, 'minInspection')).toEqual({ rule: 'minInspection', status: 'not applicable', detail: 'turned off', facts: { key: 'off' } });
    expect(status(evidence(careful()), 'minInspection', rule).status).toBe('not applicable');
  });

  it('fails a session whose inspections are too short or turn too little: excluded from the analysis, still paid', () => {
    // 3,000 ms and 120° pass; 2,000 ms (20 poses of 100 ms) and 45° fall short.
    const session = evidence([...careful(), inspected(3000, 120), inspected(2000, 120), inspected(4000, 45)]);
    const result = evaluateSession(session, rule);
    const outcome = result.outcomes.find((o) => o.rule === 'minInspection')!;
    expect(outcome.status).toBe('failed');
    expect(outcome.detail).toMatch(/^2 of 3 inspected answers short \(at least 3000 ms and 90° of azimuth, at most 0 % short\): stimulus \d+: 2000 ms; stimulus \d+: 45° of azimuth$/);
    expect([result.approved, result.included]).toEqual([true, false]);
    expect(exclusionReasons(result)).toEqual([expect.stringMatching(/^Three-dimensional objects not inspected long enough or from enough sides \(2 of 3/)]);
    expect(rejectionReasons(result)).toEqual([]);
    // A share of short answers may be allowed.
    expect(status(session, 'minInspection', { minInspection: { ms: 3000, azimuthDeg: 90, maxShortShare: 0.7 } }).status).toBe('passed');
    expect(RULE_WORDS.minInspection.fr).toBe('Objets en trois dimensions pas assez longtemps examinés ou sous trop peu d’angles');
  });
});

describe('quality summary of a report', () => {
  it('gives both verdicts of each observer, what each rule decided, and who the report keeps', () => {
    const good = evaluateSession(evidence(careful()));
    const bad = evaluateSession(evidence([rated('s1', 3), rated('s2', 3), rated('s3', 3), rated('s4', 3), checked('trap', false, 3)]));
    const slow = evaluateSession(evidence([...careful(), rated('s6', 2, { timing: envelope({ mediaError: 'x' }) })]));
    const sessions = [
      { observer: '1', completed: true, verdict: good },
      { observer: '2', completed: true, verdict: bad },
      { observer: '3', completed: true, verdict: null },
      { observer: '4', completed: false, verdict: null },
      { observer: '5', completed: true, verdict: slow },
    ];
    const summary = qualitySummary(sessions, { rejected: false, excluded: false });
    expect(summary.sessions).toEqual({ completed: 4, approved: 2, rejected: 1, included: 1, excluded: 2, notJudged: 1, incomplete: 1, kept: 3 });
    expect(summary.rules.find((r) => r.rule === 'minVariance')).toEqual({ rule: 'minVariance', words: 'Gave (almost) the same answer to every question', decides: 'payment', passed: 2, failed: 1, notApplicable: 0 });
    expect(summary.observers.map((o) => [o.observer, o.payment, o.analysis, o.inReport, o.failed.map((f) => f.rule)])).toEqual([
      ['1', 'approve', 'include', true, []],
      ['2', 'reject', 'exclude', false, ['traps', 'minVariance']],
      ['3', 'not judged', 'not judged', true, []],
      ['4', 'incomplete', 'incomplete', true, []],
      ['5', 'approve', 'exclude', false, ['shownToEnd']],
    ]);
    expect(qualitySummary(sessions, { rejected: true, excluded: false }).observers.map((o) => o.inReport)).toEqual([true, true, true, true, false]);
    expect(qualitySummary(sessions, { rejected: false, excluded: true }).observers.map((o) => o.inReport)).toEqual([true, false, true, true, true]);
    expect(qualitySummary(sessions, { rejected: true, excluded: true }).sessions.kept).toBe(5);
  });
});
