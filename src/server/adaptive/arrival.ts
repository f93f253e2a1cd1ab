import { randomBytes } from 'node:crypto';
import { orientComparisons, planComparisons, type ContentCounts } from '../../analysis/asap/plan.js';
import { createRandom, shuffled, type Random } from '../../analysis/random.js';
import type { MediaAttributes } from '../../contract/study.js';
import type { ProtocolDefinition } from '../../protocols/types.js';
import { countHandedOut, createOwnPlaylist, designTemplate, pairCounts, type PairCounts } from '../storage/adaptive.js';
import type { StoredJob } from '../storage/jobs.js';
import { canonicalJson, jobMedia } from '../storage/studies.js';
import type { Db, Storage } from '../storage/types.js';
import { designContents, pairKey, pairSpec, parsePairKey, type DesignContent } from './design.js';

/**
 * A new participant of an adaptive pair-comparison job gets a playlist of their own (docs/adaptive.md), made inside
 * the arrival's transaction, under the job's lock (storage/sessions.ts openSession), so that arrivals on every node
 * see each other's comparisons:
 *  1. each content's counts: the included comparisons (the running sums) and those handed out and not judged yet;
 *  2. the participant's comparisons: ASAP's batches within the budget (analysis/asap/plan.ts);
 *  3. each shown first or second so that every condition is first about as often, in a random order, with the
 *     study's gold, trap and attention checks at random places among them and its training before;
 *  4. the playlist stored, and its comparisons counted as handed out (a researcher's preview hands out nothing).
 * A resumed participant keeps the playlist they were given: this runs only when a new session is opened.
 */

/** Makes the participant's playlist inside the arrival's transaction; returns its id. */
export type OwnPlaylistMaker = (trx: Db, preview: boolean) => Promise<number>;

/** The maker for this job's arrivals (its media attributes are read once, before the lock). */
export async function ownPlaylistMaker(storage: Storage, job: StoredJob, protocol: ProtocolDefinition): Promise<OwnPlaylistMaker> {
  const design = job.design!;
  const media = await jobMedia(storage, job.id);
  const contents = designContents(protocol, design, (path): MediaAttributes => media.get(path)?.attributes ?? {});
  return async (trx, preview) => {
    const random = createRandom(randomBytes(4).readUInt32LE(0));
    const counts = contentCounts(contents, await pairCounts(trx, job.id));
    const planned = planComparisons(counts, design.comparisonsPerParticipant, random);
    const oriented = orientComparisons(planned, random);
    const pairs = planned.map(({ content }, k) => {
      const { conditions } = contents[content]!;
      const [first, second] = oriented[k]!;
      return { content, first: conditions[first]!, second: conditions[second]! };
    });
    const template = await designTemplate(trx, job.id);
    const test = withChecks(
      shuffled(pairs, random).map((p) => canonicalJson(pairSpec(design, p.first, p.second))),
      template.filter((s) => !s.isTraining).map((s) => s.spec),
      random,
    );
    const id = await createOwnPlaylist(trx, job.id, test, template.filter((s) => s.isTraining).map((s) => s.spec));
    if (!preview) {
      const handedOut = new Map<string, number>();
      for (const p of pairs) {
        const key = pairKey(contents[p.content]!.scene, p.first, p.second);
        handedOut.set(key, (handedOut.get(key) ?? 0) + 1);
      }
      await countHandedOut(trx, job.id, handedOut);
    }
    return id;
  };
}

/** Each content's count matrices, from the rows keyed by pair (pairs of conditions no longer in the design are left out). */
export function contentCounts(contents: readonly DesignContent[], counts: PairCounts): ContentCounts[] {
  const byScene = new Map(contents.map((c, index) => [c.scene, { index, conditionIndex: new Map(c.conditions.map((path, k) => [path, k])) }]));
  const out = contents.map((c) => ({ n: c.conditions.length, wins: new Float64Array(c.conditions.length ** 2), pending: new Float64Array(c.conditions.length ** 2) }));
  const locate = (key: string) => {
    const { scene, lo, hi } = parsePairKey(key);
    const content = byScene.get(scene);
    const i = content?.conditionIndex.get(lo);
    const j = content?.conditionIndex.get(hi);
    return content && i !== undefined && j !== undefined ? { counts: out[content.index]!, n: contents[content.index]!.conditions.length, i, j } : null;
  };
  for (const [key, { n, secondWins }] of counts.judged) {
    const at = locate(key);
    if (!at) continue;
    at.counts.wins[at.j * at.n + at.i] += secondWins;
    at.counts.wins[at.i * at.n + at.j] += n - secondWins;
  }
  for (const [key, pending] of counts.pending) {
    const at = locate(key);
    if (at) at.counts.pending[Math.min(at.i, at.j) * at.n + Math.max(at.i, at.j)] += pending;
  }
  return out;
}

/** The checks placed among the comparisons, each at a random place, in their study order. */
function withChecks(comparisons: string[], checks: readonly string[], random: Random): string[] {
  const out = [...comparisons];
  const places = checks.map(() => random.int(comparisons.length + 1)).sort((a, b) => a - b);
  // Inserted from the last place back, so earlier places are not moved by later insertions.
  for (let k = checks.length - 1; k >= 0; k--) out.splice(places[k]!, 0, checks[k]!);
  return out;
}
