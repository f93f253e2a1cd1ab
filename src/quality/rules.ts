import { mean, pearson, sd } from '../analysis/stats.js';
import { uninterruptedPlays, videoFrameFaults } from '../analysis/timing/timing.js';
import { inspectionOf, type ViewsInput } from '../analysis/views/views.js';
import type { PresentationRecordBody, TimingEnvelope } from '../contract/payloads.js';
import type { QualityRules, StimulusCheck } from '../contract/quality.js';
import { detailInWords, reasonInWords, ruleKind, verdictsOf, type CheckKind, type CheckMiss, type DetailFacts, type ExposureFault, type NotShown, type QuotedAnswer, type RuleName, type ShortInspection } from './reasons.js';

/**
 * The session acceptance rules (docs/quality.md). Pure: the server gathers a session's evidence
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
  /**
   * A check's answer and expected answer as the participant saw them (the protocol's labels, src/server/quality);
   * absent, the reasons quote the score (or stored value) and the check's answer as written.
   */
  quoted?: { answered: QuotedAnswer; expected: QuotedAnswer };
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
  /** What was measured, in English words (shown in reports and in decision lists when failed). */
  detail: string;
  /** The same as facts, so each reader words them in their language (src/quality/reasons.ts DETAIL_WORDS). */
  facts?: DetailFacts;
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

// The detail is worded once, from the facts, by the reasons table; the facts travel with it for other languages.
const outcome = (rule: RuleName, status: RuleStatus, facts: DetailFacts): RuleOutcome => ({ rule, status, detail: detailInWords(facts), facts });
const off = (rule: RuleName) => outcome(rule, 'not applicable', { key: 'off' });
const round = (x: number, digits = 3) => Number(x.toFixed(digits));
/** At most this many examples of a failure are kept (the count says how many there were). */
const EXAMPLES = 5;

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

/** A missed check, its answer quoted as the participant saw it (the score, or the stored value, where unlabelled). */
function describeCheck(a: ScreenedAnswer): CheckMiss {
  const quoted = a.quoted ?? { answered: { as: a.rating ? a.rating.score : a.value }, expected: { as: a.check!.answer } };
  return { stimulus: a.stimulusId, ...quoted, ...(a.check?.tolerance ? { tolerance: a.check.tolerance } : {}) };
}

function checkRule(rule: RuleName, kind: CheckKind, evidence: SessionEvidence, enabled: boolean): RuleOutcome {
  if (!enabled) return off(rule);
  const checks = evidence.answers.filter((a) => a.check?.kind === kind);
  if (checks.length === 0) return outcome(rule, 'not applicable', { key: 'noCheckStimulus', kind });
  const missed = checks.filter((a) => a.checkPassed !== true);
  if (missed.length === 0) return outcome(rule, 'passed', { key: 'checksRight', total: checks.length });
  return outcome(rule, 'failed', { key: 'checksMissed', missed: missed.length, total: checks.length, answers: missed.map(describeCheck) });
}

/** The scores of the ordinary (not check) answers of a rating protocol. */
const ordinaryRatings = (evidence: SessionEvidence) => evidence.answers.filter((a) => a.rating && !a.check).map((a) => a.rating!);

function varianceRule(evidence: SessionEvidence, minimum: number | false, afterRatings: number): RuleOutcome {
  if (minimum === false) return off('minVariance');
  const scores = ordinaryRatings(evidence).map((r) => r.score);
  if (evidence.answers.every((a) => !a.rating)) return outcome('minVariance', 'not applicable', { key: 'notRatingScale' });
  if (scores.length < afterRatings) return outcome('minVariance', 'not applicable', { key: 'tooFewRatings', ratings: scores.length, needs: afterRatings });
  // Population variance (ddof 0), as numpy's var() in the P.910 toolkit.
  const variance = sd(scores, 0) ** 2;
  return outcome('minVariance', variance >= minimum ? 'passed' : 'failed', { key: 'variance', variance: round(variance), ratings: scores.length, minimum });
}

function correlationRule(evidence: SessionEvidence, minimum: number | false, afterSessions: number): RuleOutcome {
  if (minimum === false) return off('minCorrelation');
  if (evidence.answers.every((a) => !a.rating) || !evidence.mos) return outcome('minCorrelation', 'not applicable', { key: 'notRatingScale' });
  if (evidence.mos.sessions < afterSessions) return outcome('minCorrelation', 'not applicable', { key: 'tooFewSessions', sessions: evidence.mos.sessions, needs: afterSessions });
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
  if (own.length < 3) return outcome('minCorrelation', 'not applicable', { key: 'tooFewShared', stimuli: own.length, needs: 3 });
  if (sd(own, 0) === 0 || sd(others, 0) === 0) return outcome('minCorrelation', 'not applicable', { key: 'noSpread' });
  const r = pearson(own, others);
  return outcome('minCorrelation', r >= minimum ? 'passed' : 'failed', { key: 'correlation', r: round(r), sessions: evidence.mos.sessions, stimuli: own.length, minimum });
}

const showsMedia = (step: PresentationRecordBody) => step.media.length > 0;

/** Why this answer's stimulus was not seen whole, or null when it was. */
function notShownReason(a: ScreenedAnswer): NotShown | null {
  const stimulus = a.stimulusId;
  if (!a.timing) return { stimulus, why: 'noTiming' };
  if (a.timing.mediaError) return { stimulus, why: 'mediaError', error: a.timing.mediaError.slice(0, 80) };
  const steps = a.timing.plays.flat().filter(showsMedia);
  if (steps.length === 0) return { stimulus, why: 'noMediaStep' };
  // Only the last play counts: the participant may interrupt a play to replay it.
  if ((a.timing.plays.at(-1) ?? []).some((s) => s.endedBy === 'abort')) return { stimulus, why: 'aborted' };
  return null;
}

function shownToEndRule(evidence: SessionEvidence, enabled: boolean): RuleOutcome {
  if (!enabled) return off('shownToEnd');
  const answers = evidence.answers.length;
  if (answers === 0) return outcome('shownToEnd', 'not applicable', { key: 'noAnswer' });
  const missing = evidence.answers.flatMap((a) => notShownReason(a) ?? []);
  if (missing.length === 0) return outcome('shownToEnd', 'passed', { key: 'allShown', answers });
  return outcome('shownToEnd', 'failed', { key: 'notShown', count: missing.length, answers, examples: missing.slice(0, EXAMPLES) });
}

/** The tolerance of the exposure rule (docs/quality.md). */
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
export function exposureFault(step: PresentationRecordBody, tolerance: ExposureTolerance): ExposureFault | null {
  if (countsClipFrames(step)) {
    // A video's exposure is its cadence: each clip frame on its own refreshes, as the stage counted what it drew.
    const { skipped, repeated } = videoFrameFaults(step.videos);
    if (skipped + repeated > 0) return { step: step.label, fault: 'cadence', skipped, repeated };
  }
  if (step.endedBy !== 'duration' || step.requestedFrames === null) return null;
  const allowed = step.requestedFrames >= tolerance.exactExposureBelowFrames ? tolerance.exposureToleranceFrames : 0;
  const off = step.shownFrames - step.requestedFrames;
  if (Math.abs(off) > allowed) return { step: step.label, fault: 'frames', shown: step.shownFrames, requested: step.requestedFrames, allowed };
  if (tolerance.maxDroppedFrames !== false && step.droppedFrames > tolerance.maxDroppedFrames) return { step: step.label, fault: 'dropped', dropped: step.droppedFrames, max: tolerance.maxDroppedFrames };
  return null;
}

/** A step whose videos the stage counted frame by frame (the element's own counter is no evidence either way). */
function countsClipFrames(step: PresentationRecordBody): boolean {
  return (step.videos ?? []).some((v) => typeof v.skippedFrames === 'number' || typeof v.repeatedFrames === 'number');
}

/** A step whose exposure the rule judges: ended by its duration, or a video the stage counted frame by frame. */
const isTimedStep = (step: PresentationRecordBody) => (step.endedBy === 'duration' && step.requestedFrames !== null) || countsClipFrames(step);

/** The exposure faults of every play of an answer. */
export function answerExposureFaults(timing: TimingEnvelope, tolerance: ExposureTolerance): ExposureFault[] {
  return uninterruptedPlays(timing.plays).flat().flatMap((step) => exposureFault(step, tolerance) ?? []);
}

function mistimedRule(evidence: SessionEvidence, r: EffectiveRules): RuleOutcome {
  const maxShare = r.maxMistimedShare;
  if (maxShare === false) return off('maxMistimedShare');
  const timed = evidence.answers.filter((a) => a.timing && uninterruptedPlays(a.timing.plays).flat().some(isTimedStep));
  if (timed.length === 0) return outcome('maxMistimedShare', 'not applicable', { key: 'noTimedStep' });
  const mistimed = timed.map((a) => ({ a, faults: answerExposureFaults(a.timing!, r) })).filter((m) => m.faults.length > 0);
  const share = mistimed.length / timed.length;
  const examples = mistimed.slice(0, 3).map((m) => ({ stimulus: m.a.stimulusId, fault: m.faults[0]! }));
  const facts: DetailFacts = { key: 'mistimed', count: mistimed.length, timed: timed.length, sharePct: round(share * 100, 1), maxPct: round(maxShare * 100, 1), examples };
  return outcome('maxMistimedShare', share <= maxShare + 1e-12 ? 'passed' : 'failed', facts);
}

function fullscreenRule(evidence: SessionEvidence, enabled: boolean): RuleOutcome {
  if (!enabled) return off('fullscreen');
  if (!evidence.fullscreenRequired) return outcome('fullscreen', 'not applicable', { key: 'fullscreenNotRequired' });
  const known = evidence.answers.filter((a) => a.timing);
  if (known.length === 0) return outcome('fullscreen', 'not applicable', { key: 'noWindowState' });
  const windowed = known.filter((a) => !a.timing!.window.isfullScreen);
  if (windowed.length === 0) return outcome('fullscreen', 'passed', { key: 'allFullscreen', answers: known.length });
  return outcome('fullscreen', 'failed', { key: 'outsideFullscreen', count: windowed.length, answers: known.length });
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
  if (timed.length === 0) return outcome('minTrialMs', 'not applicable', { key: 'noAnswerTime' });
  const fast = timed.filter((t) => t.ms! < minimum);
  if (fast.length === 0) return outcome('minTrialMs', 'passed', { key: 'fastest', ms: Math.round(Math.min(...timed.map((t) => t.ms!))), minimum });
  const examples = fast.slice(0, EXAMPLES).map((t) => ({ stimulus: t.a.stimulusId, ms: Math.round(t.ms!) }));
  return outcome('minTrialMs', 'failed', { key: 'tooFast', count: fast.length, answers: timed.length, minimum, examples });
}

type VisualEvidence = Pick<SessionEvidence, 'visualTestsRequired' | 'visualTestsPassed'>;

function visualRule(evidence: VisualEvidence, enabled: boolean): RuleOutcome {
  if (!enabled) return off('visualTests');
  if (!evidence.visualTestsRequired) return outcome('visualTests', 'not applicable', { key: 'noVisualTest' });
  if (evidence.visualTestsPassed === true) return outcome('visualTests', 'passed', { key: 'visualPassed' });
  if (evidence.visualTestsPassed === false) return outcome('visualTests', 'failed', { key: 'visualFailed' });
  return outcome('visualTests', 'failed', { key: 'visualUnknown' });
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
  if (inspected.length === 0) return outcome('minInspection', 'not applicable', { key: 'noInspection' });
  const short = inspected.flatMap((a): ShortInspection[] => {
    const seen = inspectionOf(a.views!);
    const lacks = { ...(seen.inspectMs < ms ? { ms: Math.round(seen.inspectMs) } : {}), ...(seen.azimuthRangeDeg < azimuthDeg ? { azimuthDeg: round(seen.azimuthRangeDeg, 1) } : {}) };
    return Object.keys(lacks).length ? [{ stimulus: a.stimulusId, ...lacks }] : [];
  });
  const share = short.length / inspected.length;
  const facts: DetailFacts = { key: 'inspection', count: short.length, inspected: inspected.length, ms, azimuthDeg, maxShortPct: round(maxShortShare * 100, 1), examples: short.slice(0, EXAMPLES) };
  return outcome('minInspection', share <= maxShortShare + 1e-12 ? 'passed' : 'failed', facts);
}
