import { mean, pearson, sd } from '../analysis/stats.js';
import { videoFrameFaults } from '../analysis/timing/timing.js';
import { inspectionOf, type ViewsInput } from '../analysis/views/views.js';
import type { PresentationRecordBody, TimingEnvelope } from '../contract/payloads.js';
import type { QualityRules, StimulusCheck } from '../contract/quality.js';
import { reasonInWords, ruleKind, verdictsOf, type RuleName } from './reasons.js';

/**
 * The session acceptance rules (README "Quality control"). Pure: the server gathers a session's evidence
 * (server/quality/) and stores the verdict; these functions only judge it, so each rule is tested on hand-built
 * sessions. Defaults follow the Microsoft P.910 crowd toolkit where it has the rule (variance 0.15, gold within
 * tolerance, trap correct, correlation with the MOS); the timing rules are Glimpse's own.
 */

export type { RuleName } from './reasons.js';

export const RULE_NAMES: readonly RuleName[] = [
  'gold',
  'traps',
  'attention',
  'minVariance',
  'minCorrelation',
  'minTrialMs',
  'shownToEnd',
  'maxMistimedShare',
  'fullscreen',
  'visualTests',
  'minInspection',
];

/** Every rule with its default; `false` in a study's rules turns one off. */
export const DEFAULT_QUALITY_RULES = {
  gold: true,
  traps: true,
  attention: true,
  minVariance: 0.15,
  varianceAfterRatings: 4,
  minCorrelation: 0.7,
  correlationAfterSessions: 10,
  shownToEnd: true,
  maxMistimedShare: 0.1,
  exposureToleranceFrames: 1,
  exactExposureBelowFrames: 10,
  maxDroppedFrames: false,
  fullscreen: true,
  minTrialMs: 500,
  visualTests: true,
  minInspection: false,
} as const satisfies Required<QualityRules>;

export type EffectiveRules = { -readonly [K in keyof typeof DEFAULT_QUALITY_RULES]: Required<QualityRules>[K] };

export function effectiveRules(rules: QualityRules | undefined): EffectiveRules {
  return { ...DEFAULT_QUALITY_RULES, ...rules };
}

/** One test answer of the session, as the rules need it. */
export interface ScreenedAnswer {
  stimulusId: number;
  /** The stored value (SPEC §5 mapping). */
  value: number;
  /** Rating protocols: the rated media (the analysis's stimulus key) and the score on the reporting scale. */
  rating: { stimulus: string; score: number } | null;
  check: StimulusCheck | null;
  /** Whether the answer meets its check; null when the stimulus has none. */
  checkPassed: boolean | null;
  /** The answer's timing envelope; null when the post carried none. */
  timing: TimingEnvelope | null;
  /** The camera poses of a 3D stimulus posted with the answer; absent or null for images and videos. */
  views?: ViewsInput | null;
}

export interface SessionEvidence {
  answers: ScreenedAnswer[];
  /** The job requires fullscreen (requestFullScreen = 1). */
  fullscreenRequired: boolean;
  /** The job runs visual tests (acuity, colour plates). */
  visualTestsRequired: boolean;
  /** What the session logs show of the visual tests: passed, failed, or null when no log shows them. */
  visualTestsPassed: boolean | null;
  /** Rating protocols: the MOS per stimulus from the job's other accepted sessions, and how many sessions. */
  mos: { sessions: number; byStimulus: ReadonlyMap<string, number> } | null;
}

export type RuleStatus = 'passed' | 'failed' | 'not applicable';

export interface RuleOutcome {
  rule: RuleName;
  status: RuleStatus;
  /** What was measured, in words (shown in reports and in decision lists when failed). */
  detail: string;
}

/**
 * A session's two verdicts: payment (approved unless a payment rule failed: checks, straight-lining, answers too
 * fast) and analysis (included unless any rule failed, technical ones too). A technical fault never rejects.
 */
export interface Verdict {
  approved: boolean;
  included: boolean;
  outcomes: RuleOutcome[];
}

/** Why the session is rejected (payment rules that failed), in words. */
export function rejectionReasons(verdict: { outcomes: readonly RuleOutcome[] }): string[] {
  return verdict.outcomes.filter((o) => o.status === 'failed' && ruleKind(o.rule) === 'payment').map((o) => reasonInWords(o));
}

/** Why the session is left out of the analysis (every failed rule), in words. */
export function exclusionReasons(verdict: { outcomes: readonly RuleOutcome[] }): string[] {
  return verdict.outcomes.filter((o) => o.status === 'failed').map((o) => reasonInWords(o));
}

const outcome = (rule: RuleName, status: RuleStatus, detail: string): RuleOutcome => ({ rule, status, detail });
const off = (rule: RuleName) => outcome(rule, 'not applicable', 'turned off');
const round = (x: number, digits = 3) => Number(x.toFixed(digits));
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const stimuli = (n: number) => `${n} ${n === 1 ? 'stimulus' : 'stimuli'}`;

/** Judges one session. Every rule gives an outcome; the session is accepted when none failed. */
export function evaluateSession(evidence: SessionEvidence, rules: QualityRules | undefined = {}): Verdict {
  const r = effectiveRules(rules);
  const outcomes = [
    checkRule('gold', 'gold', evidence, r.gold),
    checkRule('traps', 'trap', evidence, r.traps),
    checkRule('attention', 'attention', evidence, r.attention),
    varianceRule(evidence, r.minVariance, r.varianceAfterRatings),
    correlationRule(evidence, r.minCorrelation, r.correlationAfterSessions),
    trialTimeRule(evidence, r.minTrialMs),
    shownToEndRule(evidence, r.shownToEnd),
    mistimedRule(evidence, r),
    fullscreenRule(evidence, r.fullscreen),
    visualRule(evidence, r.visualTests),
    inspectionRule(evidence, r.minInspection),
  ];
  return { ...verdictsOf(outcomes), outcomes };
}

function describeCheck(a: ScreenedAnswer): string {
  const tolerance = a.check?.tolerance ? ` ± ${a.check.tolerance}` : '';
  const given = a.rating ? `, answered ${a.rating.score}` : `, stored value ${a.value}`;
  return `stimulus ${a.stimulusId} (expected ${a.check?.answer}${tolerance}${given})`;
}

function checkRule(rule: RuleName, kind: StimulusCheck['kind'], evidence: SessionEvidence, enabled: boolean): RuleOutcome {
  if (!enabled) return off(rule);
  const checks = evidence.answers.filter((a) => a.check?.kind === kind);
  if (checks.length === 0) return outcome(rule, 'not applicable', `no ${kind} stimulus in the playlist`);
  const missed = checks.filter((a) => a.checkPassed !== true);
  if (missed.length === 0) return outcome(rule, 'passed', `${checks.length} of ${checks.length} right`);
  return outcome(rule, 'failed', `${missed.length} of ${stimuli(checks.length)} missed: ${missed.map(describeCheck).join('; ')}`);
}

/** The scores of the ordinary (not check) answers of a rating protocol. */
const ordinaryRatings = (evidence: SessionEvidence) => evidence.answers.filter((a) => a.rating && !a.check).map((a) => a.rating!);

function varianceRule(evidence: SessionEvidence, minimum: number | false, afterRatings: number): RuleOutcome {
  if (minimum === false) return off('minVariance');
  const scores = ordinaryRatings(evidence).map((r) => r.score);
  if (evidence.answers.every((a) => !a.rating)) return outcome('minVariance', 'not applicable', 'not a rating scale');
  if (scores.length < afterRatings) return outcome('minVariance', 'not applicable', `${plural(scores.length, 'rating')}, the rule needs ${afterRatings}`);
  // Population variance (ddof 0), as numpy's var() in the P.910 toolkit.
  const variance = sd(scores, 0) ** 2;
  const detail = `variance ${round(variance)} of ${scores.length} ratings (minimum ${minimum})`;
  return outcome('minVariance', variance >= minimum ? 'passed' : 'failed', detail);
}

function correlationRule(evidence: SessionEvidence, minimum: number | false, afterSessions: number): RuleOutcome {
  if (minimum === false) return off('minCorrelation');
  if (evidence.answers.every((a) => !a.rating) || !evidence.mos) return outcome('minCorrelation', 'not applicable', 'not a rating scale');
  if (evidence.mos.sessions < afterSessions) {
    return outcome('minCorrelation', 'not applicable', `${plural(evidence.mos.sessions, 'other accepted session')}, the rule needs ${afterSessions}`);
  }
  // The session's mean score per stimulus (a stimulus may repeat) against the others' MOS of the same stimuli.
  const byStimulus = new Map<string, number[]>();
  for (const r of ordinaryRatings(evidence)) byStimulus.set(r.stimulus, [...(byStimulus.get(r.stimulus) ?? []), r.score]);
  const own: number[] = [];
  const others: number[] = [];
  for (const [stimulus, scores] of byStimulus) {
    const mos = evidence.mos.byStimulus.get(stimulus);
    if (mos === undefined) continue;
    own.push(mean(scores));
    others.push(mos);
  }
  if (own.length < 3) return outcome('minCorrelation', 'not applicable', `${stimuli(own.length)} rated by others too, the rule needs 3`);
  if (sd(own, 0) === 0 || sd(others, 0) === 0) return outcome('minCorrelation', 'not applicable', 'no spread to correlate (see minVariance)');
  const r = pearson(own, others);
  return outcome('minCorrelation', r >= minimum ? 'passed' : 'failed', `Pearson r ${round(r)} with the MOS of ${evidence.mos.sessions} other sessions over ${own.length} stimuli (minimum ${minimum})`);
}

const showsMedia = (step: PresentationRecordBody) => step.media.length > 0;

/** Why this answer's stimulus was not seen whole, or null when it was. */
function notShownReason(a: ScreenedAnswer): string | null {
  if (!a.timing) return 'no timing record';
  if (a.timing.mediaError) return `media error (${a.timing.mediaError.slice(0, 80)})`;
  const steps = a.timing.plays.flat().filter(showsMedia);
  if (steps.length === 0) return 'no media step recorded';
  // Only the last play counts: the participant may interrupt a play to replay it.
  if ((a.timing.plays.at(-1) ?? []).some((s) => s.endedBy === 'abort')) return 'presentation aborted';
  return null;
}

function shownToEndRule(evidence: SessionEvidence, enabled: boolean): RuleOutcome {
  if (!enabled) return off('shownToEnd');
  if (evidence.answers.length === 0) return outcome('shownToEnd', 'not applicable', 'no answer');
  const missing = evidence.answers.flatMap((a) => {
    const reason = notShownReason(a);
    return reason ? [`stimulus ${a.stimulusId}: ${reason}`] : [];
  });
  if (missing.length === 0) return outcome('shownToEnd', 'passed', `${plural(evidence.answers.length, 'answer')}, every stimulus shown to the end`);
  return outcome('shownToEnd', 'failed', `${missing.length} of ${plural(evidence.answers.length, 'answer')} not shown to the end: ${missing.slice(0, 5).join('; ')}${missing.length > 5 ? '; …' : ''}`);
}

/** The tolerance of the exposure rule (README "Quality control"). */
export interface ExposureTolerance {
  exposureToleranceFrames: number;
  exactExposureBelowFrames: number;
  maxDroppedFrames: number | false;
}

/**
 * Why a step's exposure was not what the study asked, or null when it was. A step that ended by its duration
 * counts: its duration is the stimulus exposure. A video the stage counted frame by frame counts by its cadence: a
 * clip frame skipped or kept beyond its refreshes is mistimed. A hold (a face shown until the answer), a click, a
 * video's end as such or an abort is not timed exposure (the record says what was shown, and shownToEnd judges an
 * abort). A step of at least `exactExposureBelowFrames` frames may be `exposureToleranceFrames` over or under; a
 * shorter step must be exact. Dropped frames count only when the study sets `maxDroppedFrames` (moving stimuli): a
 * late frame of a still image changes what was seen only when it moves the offset, and the tolerance judges that.
 */
export function exposureError(step: PresentationRecordBody, tolerance: ExposureTolerance): string | null {
  if (countsClipFrames(step)) {
    // A video's exposure is its cadence: each clip frame on its own refreshes, as the stage counted what it drew.
    const { skipped, repeated } = videoFrameFaults(step.videos);
    if (skipped + repeated > 0) return `${step.label}: ${plural(skipped, 'clip frame')} skipped, ${repeated} repeated beyond the cadence`;
  }
  if (step.endedBy !== 'duration' || step.requestedFrames === null) return null;
  const allowed = step.requestedFrames >= tolerance.exactExposureBelowFrames ? tolerance.exposureToleranceFrames : 0;
  const off = step.shownFrames - step.requestedFrames;
  if (Math.abs(off) > allowed) return `${step.label}: ${step.shownFrames} of ${step.requestedFrames} frames (${allowed === 0 ? 'exact' : `± ${allowed}`} allowed)`;
  if (tolerance.maxDroppedFrames !== false && step.droppedFrames > tolerance.maxDroppedFrames) return `${step.label}: ${plural(step.droppedFrames, 'dropped frame')} (at most ${tolerance.maxDroppedFrames})`;
  return null;
}

/** A step whose videos the stage counted frame by frame (the element's own counter is no evidence either way). */
function countsClipFrames(step: PresentationRecordBody): boolean {
  return (step.videos ?? []).some((v) => typeof v.skippedFrames === 'number' || typeof v.repeatedFrames === 'number');
}

/** A step whose exposure the rule judges: ended by its duration, or a video the stage counted frame by frame. */
const isTimedStep = (step: PresentationRecordBody) => (step.endedBy === 'duration' && step.requestedFrames !== null) || countsClipFrames(step);

/** The exposure errors of every play of an answer. */
export function answerExposureErrors(timing: TimingEnvelope, tolerance: ExposureTolerance): string[] {
  return timing.plays.flat().flatMap((step) => exposureError(step, tolerance) ?? []);
}

function mistimedRule(evidence: SessionEvidence, r: EffectiveRules): RuleOutcome {
  const maxShare = r.maxMistimedShare;
  if (maxShare === false) return off('maxMistimedShare');
  const timed = evidence.answers.filter((a) => a.timing && a.timing.plays.flat().some(isTimedStep));
  if (timed.length === 0) return outcome('maxMistimedShare', 'not applicable', 'no step timed by its duration');
  const mistimed = timed.map((a) => ({ a, errors: answerExposureErrors(a.timing!, r) })).filter((m) => m.errors.length > 0);
  const share = mistimed.length / timed.length;
  const examples = mistimed.slice(0, 3).map((m) => `stimulus ${m.a.stimulusId}: ${m.errors[0]}`);
  const detail = `${mistimed.length} of ${plural(timed.length, 'timed answer')} mistimed (${round(share * 100, 1)} %, maximum ${round(maxShare * 100, 1)} %)${examples.length ? `: ${examples.join('; ')}${mistimed.length > 3 ? '; …' : ''}` : ''}`;
  return outcome('maxMistimedShare', share <= maxShare + 1e-12 ? 'passed' : 'failed', detail);
}

function fullscreenRule(evidence: SessionEvidence, enabled: boolean): RuleOutcome {
  if (!enabled) return off('fullscreen');
  if (!evidence.fullscreenRequired) return outcome('fullscreen', 'not applicable', 'the job does not require fullscreen');
  const known = evidence.answers.filter((a) => a.timing);
  if (known.length === 0) return outcome('fullscreen', 'not applicable', 'no timing record tells the window state');
  const windowed = known.filter((a) => !a.timing!.window.isfullScreen);
  if (windowed.length === 0) return outcome('fullscreen', 'passed', `${plural(known.length, 'answer')} given in fullscreen`);
  return outcome('fullscreen', 'failed', `${windowed.length} of ${plural(known.length, 'answer')} given outside fullscreen`);
}

/** Milliseconds from the first media onset of the trial to its answer, when the envelope tells both. */
export function trialMs(timing: TimingEnvelope | null): number | null {
  if (!timing || timing.answeredMs === undefined) return null;
  const first = timing.plays.flat().find(showsMedia);
  return first ? timing.answeredMs - first.onsetMs : null;
}

function trialTimeRule(evidence: SessionEvidence, minimum: number | false): RuleOutcome {
  if (minimum === false) return off('minTrialMs');
  const timed = evidence.answers.map((a) => ({ a, ms: trialMs(a.timing) })).filter((t) => t.ms !== null);
  if (timed.length === 0) return outcome('minTrialMs', 'not applicable', 'no answer time recorded');
  const fast = timed.filter((t) => t.ms! < minimum);
  if (fast.length === 0) return outcome('minTrialMs', 'passed', `fastest answer ${Math.round(Math.min(...timed.map((t) => t.ms!)))} ms (minimum ${minimum} ms)`);
  const list = fast.slice(0, 5).map((t) => `stimulus ${t.a.stimulusId} in ${Math.round(t.ms!)} ms`);
  return outcome('minTrialMs', 'failed', `${fast.length} of ${plural(timed.length, 'answer')} faster than ${minimum} ms: ${list.join('; ')}${fast.length > 5 ? '; …' : ''}`);
}

type VisualEvidence = Pick<SessionEvidence, 'visualTestsRequired' | 'visualTestsPassed'>;

function visualRule(evidence: VisualEvidence, enabled: boolean): RuleOutcome {
  if (!enabled) return off('visualTests');
  if (!evidence.visualTestsRequired) return outcome('visualTests', 'not applicable', 'the job runs no visual test');
  if (evidence.visualTestsPassed === true) return outcome('visualTests', 'passed', 'passed, as the session logs show');
  if (evidence.visualTestsPassed === false) return outcome('visualTests', 'failed', 'failed, as the session logs show');
  return outcome('visualTests', 'failed', 'no session log shows the visual tests passed');
}

/**
 * The verdict with its visual-test outcome judged again (the session logs arrived after the verdict); null when the
 * outcome is the same. The other rules do not read the logs, so they keep their outcomes.
 */
export function withVisualTests(verdict: Verdict, evidence: VisualEvidence, rules: QualityRules | undefined = {}): Verdict | null {
  const next = visualRule(evidence, effectiveRules(rules).visualTests);
  const at = verdict.outcomes.findIndex((o) => o.rule === 'visualTests');
  const old = verdict.outcomes[at];
  if (old && old.status === next.status && old.detail === next.detail) return null;
  const outcomes = at >= 0 ? verdict.outcomes.map((o, i) => (i === at ? next : o)) : [...verdict.outcomes, next];
  return { ...verdictsOf(outcomes), outcomes };
}

/**
 * What the interaction logs' state changes show of the visual tests: the page goes from Eligibility/visual to
 * Instruction when both passed, to FailEligibility when one failed. null when the logs never reach that step.
 */
export function visualTestsOutcome(states: ReadonlyArray<{ state: string; status: string }>): boolean | null {
  let result: boolean | null = null;
  for (let i = 0; i < states.length; i++) {
    if (states[i]!.state !== 'Eligibility' || states[i]!.status !== 'visual') continue;
    const next = states.slice(i + 1).find((s) => s.state !== 'Eligibility' || s.status !== 'visual');
    if (next?.state === 'Instruction') return true;
    if (next?.state === 'FailEligibility') result = false;
  }
  return result;
}

/** Each inspect-mode answer shows enough inspection time and azimuth range; a share of them may fall short. */
function inspectionRule(evidence: SessionEvidence, rule: EffectiveRules['minInspection']): RuleOutcome {
  if (rule === false) return off('minInspection');
  const { ms = 0, azimuthDeg = 0, maxShortShare = 0 } = rule;
  const inspected = evidence.answers.filter((a) => a.views?.mode === 'inspect');
  if (inspected.length === 0) return outcome('minInspection', 'not applicable', 'no 3D object inspected');
  const short = inspected.flatMap((a) => {
    const seen = inspectionOf(a.views!);
    const lacks = [...(seen.inspectMs < ms ? [`${Math.round(seen.inspectMs)} ms`] : []), ...(seen.azimuthRangeDeg < azimuthDeg ? [`${round(seen.azimuthRangeDeg, 1)}° of azimuth`] : [])];
    return lacks.length ? [`stimulus ${a.stimulusId}: ${lacks.join(', ')}`] : [];
  });
  const share = short.length / inspected.length;
  const wanted = `at least ${ms} ms and ${azimuthDeg}° of azimuth, at most ${round(maxShortShare * 100, 1)} % short`;
  const detail = `${short.length} of ${plural(inspected.length, 'inspected answer')} short (${wanted})${short.length ? `: ${short.slice(0, 5).join('; ')}${short.length > 5 ? '; …' : ''}` : ''}`;
  return outcome('minInspection', share <= maxShortShare + 1e-12 ? 'passed' : 'failed', detail);
}
