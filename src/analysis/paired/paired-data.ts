/**
 * Paired votes held as per-observer win counts: each vote costs 12 bytes while reading (winner, loser,
 * observer), then the votes are folded into one run-length list per observer of (winner, loser, count).
 */
import { consumeVotes, Growable, Interner, type VoteCounts } from '../collect.js';
import type { PairedVote, VoteSource } from '../types.js';

export interface PairedData {
  stimuli: string[];
  observers: string[];
  /** Entries of observer o: observerStart[o] .. observerStart[o + 1] of (winner, loser, count). */
  observerStart: Int32Array;
  winner: Int32Array;
  loser: Int32Array;
  count: Int32Array;
  /** Trials per observer. */
  trials: Int32Array;
  counts: VoteCounts;
}

/** The votes of one scene (content), folded on their own: stimuli and observers numbered within the scene. */
export interface PairedScene {
  scene: string;
  data: PairedData;
}

/** Scene name of the votes that have none, when others have one. */
export const NO_SCENE = '(no scene)';

export async function collectPairedData(source: VoteSource<PairedVote>, excludeFlagged: boolean): Promise<PairedData> {
  return (await collectPairedScenes(source, excludeFlagged)).pooled;
}

/**
 * All votes pooled, and, when some vote names a `scene`, the votes of each scene apart (pwcmp scales and screens
 * each scene on its own). Scenes are in order of first appearance.
 */
export async function collectPairedScenes(source: VoteSource<PairedVote>, excludeFlagged: boolean): Promise<{ pooled: PairedData; scenes: PairedScene[] }> {
  const stimuli = new Interner();
  const observers = new Interner();
  const scenes = new Interner();
  const winners = new Growable(Int32Array);
  const losers = new Growable(Int32Array);
  const voters = new Growable(Int32Array);
  const sceneOf = new Growable(Int32Array);
  const aWins = new Growable(Uint8Array);
  let named = false;
  const counts = await consumeVotes(source, excludeFlagged, (vote) => {
    if (vote.a === vote.b || (vote.winner !== vote.a && vote.winner !== vote.b)) return false;
    // Intern a before b so that stimuli are numbered in order of first appearance in the file.
    const a = stimuli.id(vote.a);
    const b = stimuli.id(vote.b);
    winners.push(vote.winner === vote.a ? a : b);
    losers.push(vote.winner === vote.a ? b : a);
    voters.push(observers.id(vote.observer));
    aWins.push(vote.winner === vote.a ? 1 : 0);
    if (vote.scene) named = true;
    sceneOf.push(scenes.id(vote.scene || NO_SCENE));
    return true;
  });
  const voter = voters.toArray();
  const winner = winners.toArray();
  const loser = losers.toArray();
  const pooled = foldVotes(stimuli.names, observers.names, voter, winner, loser, counts);
  if (!named) return { pooled, scenes: [] };
  const scene = sceneOf.toArray();
  const aWon = aWins.toArray();
  return {
    pooled,
    scenes: scenes.names.map((name, s) => {
      // Renumber the scene's stimuli and observers in order of first appearance within it.
      const sceneStimuli = new Interner();
      const sceneObservers = new Interner();
      const v = new Growable(Int32Array);
      const w = new Growable(Int32Array);
      const l = new Growable(Int32Array);
      for (let k = 0; k < scene.length; k++) {
        if (scene[k] !== s) continue;
        // a before b, as in the pooled numbering.
        sceneStimuli.id(stimuli.names[aWon[k] ? winner[k] : loser[k]]);
        w.push(sceneStimuli.id(stimuli.names[winner[k]]));
        l.push(sceneStimuli.id(stimuli.names[loser[k]]));
        v.push(sceneObservers.id(observers.names[voter[k]]));
      }
      const sceneCounts: VoteCounts = { read: v.length, flagged: 0, excluded: 0, skipped: 0 };
      return { scene: name, data: foldVotes(sceneStimuli.names, sceneObservers.names, v.toArray(), w.toArray(), l.toArray(), sceneCounts) };
    }),
  };
}

function foldVotes(stimuli: string[], observers: string[], voter: Int32Array, winner: Int32Array, loser: Int32Array, counts: VoteCounts): PairedData {
  const n = stimuli.length;
  // One numeric key per vote, (observer, winner, loser) in mixed radix; sorted, equal keys are one entry.
  const keys = Float64Array.from(voter, (o, k) => (o * n + winner[k]) * n + loser[k]).sort();
  const observerStart = new Int32Array(observers.length + 1);
  const w = new Int32Array(keys.length);
  const l = new Int32Array(keys.length);
  const c = new Int32Array(keys.length);
  const trials = new Int32Array(observers.length);
  let entries = 0;
  for (let k = 0; k < keys.length; k++) {
    const o = Math.floor(keys[k] / (n * n));
    trials[o]++;
    if (k > 0 && keys[k] === keys[k - 1]) {
      c[entries - 1]++;
      continue;
    }
    w[entries] = Math.floor(keys[k] / n) % n;
    l[entries] = keys[k] % n;
    c[entries] = 1;
    entries++;
    observerStart[o + 1] = entries;
  }
  // Observers are numbered in order of appearance and each has votes, so every start is set; keep it monotone anyway.
  for (let o = 0; o < observers.length; o++) observerStart[o + 1] = Math.max(observerStart[o + 1], observerStart[o]);
  return { stimuli, observers, observerStart, winner: w.slice(0, entries), loser: l.slice(0, entries), count: c.slice(0, entries), trials, counts };
}

/** Win matrix (row-major n × n, D[i·n + j] = times i beat j) of the chosen observers, each with a weight. */
export function winMatrix(data: PairedData, weightOf: (observer: number) => number): Float64Array {
  const n = data.stimuli.length;
  const d = new Float64Array(n * n);
  for (let o = 0; o < data.observers.length; o++) {
    const weight = weightOf(o);
    if (weight === 0) continue;
    for (let e = data.observerStart[o]; e < data.observerStart[o + 1]; e++) d[data.winner[e] * n + data.loser[e]] += weight * data.count[e];
  }
  return d;
}
