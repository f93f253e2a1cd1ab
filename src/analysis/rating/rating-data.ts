/**
 * Rating votes held compactly: three typed arrays (observer, stimulus, score), sorted by stimulus, then
 * observer, then arrival, so that repetitions of one observer on one stimulus are adjacent (sureal's third axis).
 */
import { consumeVotes, Growable, Interner, type VoteCounts } from '../collect.js';
import type { RatingVote, VoteSource } from '../types.js';

export interface StimulusInfo {
  condition: string | null;
  content: string | null;
  isReference: boolean;
}

export interface RatingData {
  observers: string[];
  stimuli: string[];
  stimulusInfo: StimulusInfo[];
  observerOf: Int32Array;
  stimulusOf: Int32Array;
  score: Float64Array;
  /** Start of each stimulus's votes; stimulusStart[j + 1] is its end. */
  stimulusStart: Int32Array;
  counts: VoteCounts;
  /** Stimuli whose rows disagreed on condition, content or reference flag (the first value is kept). */
  inconsistentStimuli: string[];
}

export async function collectRatingData(source: VoteSource<RatingVote>, excludeFlagged: boolean): Promise<RatingData> {
  const observers = new Interner();
  const stimuli = new Interner();
  const stimulusInfo: StimulusInfo[] = [];
  const inconsistent = new Set<string>();
  const observerOf = new Growable(Int32Array);
  const stimulusOf = new Growable(Int32Array);
  const score = new Growable(Float64Array);

  const counts = await consumeVotes(source, excludeFlagged, (vote) => {
    if (!Number.isFinite(vote.score)) return false;
    const j = stimuli.id(vote.stimulus);
    const info: StimulusInfo = { condition: vote.condition || null, content: vote.content || null, isReference: vote.isReference === true };
    if (j === stimulusInfo.length) stimulusInfo.push(info);
    else {
      const known = stimulusInfo[j];
      if (known.condition !== info.condition || known.content !== info.content || known.isReference !== info.isReference) {
        inconsistent.add(vote.stimulus);
      }
    }
    observerOf.push(observers.id(vote.observer));
    stimulusOf.push(j);
    score.push(vote.score);
    return true;
  });

  const sorted = sortByStimulusThenObserver(observerOf.toArray(), stimulusOf.toArray(), score.toArray(), stimuli.size, observers.size);
  return {
    observers: observers.names,
    stimuli: stimuli.names,
    stimulusInfo,
    ...sorted,
    counts,
    inconsistentStimuli: [...inconsistent],
  };
}

/** The votes of the kept observers only (a compact copy; indices of observers and stimuli are renumbered). */
export function keepObservers(data: RatingData, keep: (observer: number) => boolean): RatingData {
  const observerMap = new Int32Array(data.observers.length).fill(-1);
  const observers: string[] = [];
  data.observers.forEach((name, i) => {
    if (keep(i)) {
      observerMap[i] = observers.length;
      observers.push(name);
    }
  });
  const stimulusMap = new Int32Array(data.stimuli.length).fill(-1);
  const stimuli: string[] = [];
  const stimulusInfo: StimulusInfo[] = [];
  let n = 0;
  for (let k = 0; k < data.score.length; k++) {
    if (observerMap[data.observerOf[k]] < 0) continue;
    n++;
    const j = data.stimulusOf[k];
    if (stimulusMap[j] < 0) {
      stimulusMap[j] = stimuli.length;
      stimuli.push(data.stimuli[j]);
      stimulusInfo.push(data.stimulusInfo[j]);
    }
  }
  const observerOf = new Int32Array(n);
  const stimulusOf = new Int32Array(n);
  const score = new Float64Array(n);
  let m = 0;
  for (let k = 0; k < data.score.length; k++) {
    const i = observerMap[data.observerOf[k]];
    if (i < 0) continue;
    observerOf[m] = i;
    stimulusOf[m] = stimulusMap[data.stimulusOf[k]];
    score[m] = data.score[k];
    m++;
  }
  // Stimulus order is kept, so the copy is still sorted by stimulus then observer.
  return { ...data, observers, stimuli, stimulusInfo, observerOf, stimulusOf, score, stimulusStart: starts(stimulusOf, stimuli.length) };
}

function sortByStimulusThenObserver(observerOf: Int32Array, stimulusOf: Int32Array, score: Float64Array, nStimuli: number, nObservers: number) {
  // Two stable counting sorts (observer, then stimulus) keep the arrival order of repetitions.
  const byObserver = countingOrder(observerOf, nObservers, null);
  const order = countingOrder(stimulusOf, nStimuli, byObserver);
  const sortedObserver = new Int32Array(order.length);
  const sortedStimulus = new Int32Array(order.length);
  const sortedScore = new Float64Array(order.length);
  order.forEach((k, m) => {
    sortedObserver[m] = observerOf[k];
    sortedStimulus[m] = stimulusOf[k];
    sortedScore[m] = score[k];
  });
  return { observerOf: sortedObserver, stimulusOf: sortedStimulus, score: sortedScore, stimulusStart: starts(sortedStimulus, nStimuli) };
}

/** Stable counting sort of `within` (or 0..n−1) by key. */
function countingOrder(keys: Int32Array, nKeys: number, within: Uint32Array | null): Uint32Array {
  const n = keys.length;
  const next = new Uint32Array(nKeys + 1);
  for (let k = 0; k < n; k++) next[keys[k] + 1]++;
  for (let v = 0; v < nKeys; v++) next[v + 1] += next[v];
  const order = new Uint32Array(n);
  for (let m = 0; m < n; m++) {
    const k = within ? within[m] : m;
    order[next[keys[k]]++] = k;
  }
  return order;
}

function starts(sortedKeys: Int32Array, nKeys: number): Int32Array {
  const start = new Int32Array(nKeys + 1);
  for (let k = 0; k < sortedKeys.length; k++) start[sortedKeys[k] + 1]++;
  for (let v = 0; v < nKeys; v++) start[v + 1] += start[v];
  return start;
}

/** Largest number of votes one observer gave one stimulus (sureal's R, the repetitions axis). */
export function maxRepetitions(data: RatingData): number {
  let best = 0;
  let run = 0;
  for (let k = 0; k < data.score.length; k++) {
    const same = k > 0 && data.stimulusOf[k] === data.stimulusOf[k - 1] && data.observerOf[k] === data.observerOf[k - 1];
    run = same ? run + 1 : 1;
    if (run > best) best = run;
  }
  return best;
}

/** Number of votes of each observer. */
export function votesPerObserver(data: RatingData): Int32Array {
  const n = new Int32Array(data.observers.length);
  for (let k = 0; k < data.observerOf.length; k++) n[data.observerOf[k]]++;
  return n;
}
