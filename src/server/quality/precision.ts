import { NO_SCENE } from '../../analysis/paired/paired-data.js';
import { pairedPrecision, ratingPrecision, type JobPrecision, type SceneCounts, type ScoreMoments } from '../../analysis/precision.js';
import type { StimulusCheck } from '../../contract/quality.js';
import type { MediaAttributes } from '../../contract/study.js';
import type { ProtocolDefinition } from '../../protocols/types.js';
import { jobStimulusSpecs } from '../storage/exports.js';
import type { StoredJob } from '../storage/jobs.js';
import { includedRatingCounts, markPrecisionReached } from '../storage/precision.js';
import { jobMedia } from '../storage/studies.js';
import { designContents } from '../adaptive/design.js';
import type { Storage } from '../storage/types.js';

/**
 * Stopping for precision on the server (issue 38, docs/quality.md "Stopping for precision"): each stimulus's
 * interval from the sessions whose verdict includes them, against the study's `quality.stopWhen`. Checked after
 * every verdict that adds or removes a session; once every stimulus has reached the target, the job records the
 * time and takes no new participant (running sessions finish, as with a full quota). Ratings read the running sums
 * (one row per stimulus); pairs fold the included comparisons per stimulus and answer, one row per (stimulus,
 * answer), and solve each content's posterior.
 */

/** The protocol families whose scale the rule can judge; the study check refuses it for the others. */
export const PRECISION_FAMILIES = ['rating', 'paired'] as const;

interface TestStimulus {
  id: number;
  playlistId: number;
  spec: { check?: StimulusCheck };
}

/** The job's test stimuli that the results count: training and gold, trap and attention checks left out. */
export async function resultStimuli(storage: Storage, jobId: string): Promise<TestStimulus[]> {
  return (await jobStimulusSpecs(storage, jobId))
    .filter((s) => s.is_training === 0)
    .map((s) => ({ id: s.id, playlistId: s.playlist_id, spec: JSON.parse(s.spec) as TestStimulus['spec'] }))
    .filter((s) => s.spec.check === undefined);
}

/** The included scores' moments per analysis stimulus, rebuilt first when the running sums are stale. */
export type FreshMoments = () => Promise<Map<string, ScoreMoments>>;

/**
 * The job's precision against its rule; null when the study sets none or its protocol has no such scale.
 * `moments` gives the rating protocols' running sums (server/quality/screening.ts rebuilds stale ones).
 */
export async function jobPrecision(storage: Storage, job: StoredJob, protocol: ProtocolDefinition, moments: FreshMoments): Promise<JobPrecision | null> {
  const rule = job.quality.stopWhen;
  if (!rule) return null;
  const adapter = protocol.analysis;
  if (adapter.family !== 'rating' && adapter.family !== 'paired') return null;
  const media = await jobMedia(storage, job.id);
  const attributes = (path: string): MediaAttributes => media.get(path)?.attributes ?? {};
  const stimuli = await resultStimuli(storage, job.id);
  // The analysis stimulus of a stored stimulus does not depend on the answer: any value the protocol stores names it.
  const anyValue = protocol.answers.ratingValues[0]!;

  if (adapter.family === 'rating') {
    const expected = stimuli.map((s) => adapter.vote({ stimulusId: s.id, spec: s.spec, value: anyValue, attributes }).stimulus);
    return ratingPrecision(await moments(), expected, rule);
  }

  // Pairs: every option of every content, then the included comparisons.
  const scenes = new Map<string, { index: Map<string, number>; wins: Map<string, number> }>();
  const sceneOf = (name: string | null | undefined) => {
    const key = name ?? NO_SCENE;
    let scene = scenes.get(key);
    if (!scene) scenes.set(key, (scene = { index: new Map(), wins: new Map() }));
    return scene;
  };
  const option = (scene: ReturnType<typeof sceneOf>, name: string) => {
    if (!scene.index.has(name)) scene.index.set(name, scene.index.size);
    return scene.index.get(name)!;
  };
  // An adaptive design's conditions are all on the scale, compared yet or not.
  for (const content of job.design ? designContents(protocol, job.design, attributes) : []) {
    const scene = sceneOf(content.scene);
    for (const condition of content.conditions) option(scene, condition);
  }
  const specs = new Map(stimuli.map((s) => [s.id, s.spec]));
  for (const s of stimuli) {
    const vote = adapter.vote({ stimulusId: s.id, spec: s.spec, value: anyValue, attributes });
    const scene = sceneOf(vote.scene);
    option(scene, vote.a);
    option(scene, vote.b);
  }
  for (const row of await includedRatingCounts(storage, job.id)) {
    const spec = specs.get(row.stimulus_id);
    if (!spec) continue; // a check or a training stimulus
    const vote = adapter.vote({ stimulusId: row.stimulus_id, spec, value: row.value, attributes });
    const scene = sceneOf(vote.scene);
    const winner = option(scene, vote.winner);
    const loser = option(scene, vote.winner === vote.a ? vote.b : vote.a);
    const key = `${winner},${loser}`;
    scene.wins.set(key, (scene.wins.get(key) ?? 0) + row.n);
  }
  const counts: SceneCounts[] = [...scenes.values()].map((scene) => {
    const n = scene.index.size;
    const wins = new Float64Array(n * n);
    for (const [key, count] of scene.wins) {
      const [winner, loser] = key.split(',').map(Number) as [number, number];
      wins[winner * n + loser] = count;
    }
    return { stimuli: [...scene.index.keys()], wins };
  });
  return pairedPrecision(counts, rule);
}

/**
 * After a verdict added or removed a session: when the job has a precision rule it has not reached yet and every
 * stimulus now reaches it, records the time (once: a later withdrawal does not reopen the job). Returns the time
 * recorded, or null.
 */
export async function checkPrecisionRule(storage: Storage, job: StoredJob, protocol: ProtocolDefinition, moments: FreshMoments): Promise<string | null> {
  if (!job.quality.stopWhen || job.precisionReachedAt) return null;
  const precision = await jobPrecision(storage, job, protocol, moments);
  if (!precision?.allReached) return null;
  return markPrecisionReached(storage, job.id);
}
