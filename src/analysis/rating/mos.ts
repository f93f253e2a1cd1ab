/**
 * MOS per stimulus and per condition (sureal's MosModel: NaN-free mean, SD with n − 1, normal CI ±1.95996·SE,
 * plus a Student-t CI) and DMOS for ACR-HR studies.
 */
import { SUREAL_Z95, tQuantile, type Interval } from '../stats.js';
import type { RatingData } from './rating-data.js';

export interface MosStats {
  n: number;
  mos: number;
  /** Sample SD (n − 1). */
  sd: number;
  /** SD / √n. */
  se: number;
  /** mos ± 1.95996·SE (sureal). */
  ci95: Interval;
  /** mos ± t(0.975, n − 1)·SE. */
  ci95_t: Interval;
}

export interface StimulusMos extends MosStats {
  stimulus: string;
  condition: string | null;
  content: string | null;
  isReference: boolean;
}

export interface ConditionMos extends MosStats {
  condition: string;
  /** Stimuli pooled into this condition. */
  stimuli: number;
}

export interface StimulusDmos {
  stimulus: string;
  content: string;
  reference: string;
  /** MOS(PVS) − MOS(reference of the same content) + 5 (sureal's DmosModel; P.910 ACR-HR averaged over votes). */
  dmos: number;
  /** min(dmos, 5), as the P.910 crowd toolkit reports it. */
  dmosClipped: number;
  ci95: Interval;
}

/** Highest score of the 5-grade scales: the hidden reference's DMOS. */
export const DMOS_REFERENCE_SCORE = 5;

/** From the sum of the scores and the sum of their squared deviations from the mean. */
function fromMoments(sum: number, squaredDeviations: number, n: number): MosStats {
  const mos = sum / n;
  const sd = n > 1 ? Math.sqrt(squaredDeviations / (n - 1)) : NaN;
  const se = sd / Math.sqrt(n);
  const z = SUREAL_Z95 * se;
  const t = n > 1 ? tQuantile(0.975, n - 1) * se : NaN;
  return { n, mos, sd, se, ci95: [mos - z, mos + z], ci95_t: [mos - t, mos + t] };
}

/** Stats of a list of scores (two passes: mean, then squared deviations). */
export function statsOf(values: ArrayLike<number>): MosStats {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i];
  const m = sum / values.length;
  let ss = 0;
  for (let i = 0; i < values.length; i++) ss += (values[i] - m) ** 2;
  return fromMoments(sum, ss, values.length);
}

export function stimulusMos(data: RatingData): StimulusMos[] {
  return data.stimuli.map((stimulus, j) => {
    const info = data.stimulusInfo[j];
    const stats = statsOf(data.score.subarray(data.stimulusStart[j], data.stimulusStart[j + 1]));
    return { stimulus, condition: info.condition, content: info.content, isReference: info.isReference, ...stats };
  });
}

/** Votes pooled over the stimuli of each condition (the P.910 crowd toolkit's votes_per_condition). */
export function conditionMos(data: RatingData): ConditionMos[] {
  const groups = new Map<string, number[]>();
  data.stimulusInfo.forEach((info, j) => {
    if (info.condition === null) return;
    const list = groups.get(info.condition) ?? [];
    list.push(j);
    groups.set(info.condition, list);
  });
  return [...groups].map(([condition, stimuli]) => {
    const values: number[] = [];
    for (const j of stimuli) for (let k = data.stimulusStart[j]; k < data.stimulusStart[j + 1]; k++) values.push(data.score[k]);
    return { condition, stimuli: stimuli.length, ...statsOf(values) };
  });
}

export interface ContentConditionMos extends MosStats {
  content: string;
  /** null: the content's stimuli without a condition. */
  condition: string | null;
  stimuli: number;
}

/** Votes pooled per (content, condition) cell: a condition's MOS within each content, for per-content charts. */
export function contentConditionMos(data: RatingData): ContentConditionMos[] {
  const cells = new Map<string, { content: string; condition: string | null; stimuli: number[] }>();
  data.stimulusInfo.forEach((info, j) => {
    if (info.content === null) return;
    const key = JSON.stringify([info.content, info.condition]);
    const cell = cells.get(key) ?? { content: info.content, condition: info.condition, stimuli: [] };
    cell.stimuli.push(j);
    cells.set(key, cell);
  });
  return [...cells.values()].map(({ content, condition, stimuli }) => {
    const values: number[] = [];
    for (const j of stimuli) for (let k = data.stimulusStart[j]; k < data.stimulusStart[j + 1]; k++) values.push(data.score[k]);
    return { content, condition, stimuli: stimuli.length, ...statsOf(values) };
  });
}

export interface VoteDistribution {
  /** Each score given, ascending, with how many votes gave it (all observers, before screening). */
  scores: Array<{ score: number; votes: number; share: number }>;
  /** Per stimulus: votes per score, in the order of `scores`. */
  stimuli: Array<{ stimulus: string; counts: number[] }>;
}

export function voteDistribution(data: RatingData): VoteDistribution {
  const values = [...new Set(data.score)].sort((a, b) => a - b);
  const column = new Map(values.map((v, i) => [v, i]));
  const total = new Array<number>(values.length).fill(0);
  const stimuli = data.stimuli.map((stimulus, j) => {
    const counts = new Array<number>(values.length).fill(0);
    for (let k = data.stimulusStart[j]; k < data.stimulusStart[j + 1]; k++) counts[column.get(data.score[k])!]++;
    counts.forEach((c, i) => (total[i] += c));
    return { stimulus, counts };
  });
  return { scores: values.map((score, i) => ({ score, votes: total[i], share: total[i] / data.score.length })), stimuli };
}

/**
 * DMOS of every stimulus whose content has exactly one hidden reference. Returns the rows and, for contents
 * that cannot be paired (no reference or several), a note.
 */
export function stimulusDmos(mos: StimulusMos[]): { rows: StimulusDmos[]; problems: string[] } {
  const references = new Map<string, StimulusMos[]>();
  for (const row of mos) {
    if (!row.isReference || row.content === null) continue;
    references.set(row.content, [...(references.get(row.content) ?? []), row]);
  }
  const problems: string[] = [];
  const rows: StimulusDmos[] = [];
  const reported = new Set<string>();
  for (const row of mos) {
    if (row.content === null) continue;
    const refs = references.get(row.content) ?? [];
    if (refs.length !== 1) {
      if (!reported.has(row.content)) {
        problems.push(`content ${row.content}: ${refs.length === 0 ? 'no hidden reference' : `${refs.length} hidden references`}, no DMOS`);
        reported.add(row.content);
      }
      continue;
    }
    const dmos = row.mos - refs[0].mos + DMOS_REFERENCE_SCORE;
    const half = SUREAL_Z95 * row.se;
    rows.push({
      stimulus: row.stimulus,
      content: row.content,
      reference: refs[0].stimulus,
      dmos,
      dmosClipped: Math.min(dmos, DMOS_REFERENCE_SCORE),
      ci95: [dmos - half, dmos + half],
    });
  }
  return { rows, problems };
}
