import type { JobResponse } from '../../contract/job.js';
import type { ScaleParams } from '../common/levels/LevelResponse.js';
import type { LevelScale } from '../common/levels/levels.js';
import type { SingleParams } from '../common/levels/singleStimulus.js';
import { pairParams } from '../pair/plan.js';

/**
 * Acceptability-annoyance scale. SPEC §9: "2 levels in the dialog", scale labels Not Annoying, Annoying but
 * Acceptable, Not Acceptable. Our reading: the two levels are acceptability (acceptable / not acceptable); the
 * acceptable level is split by annoyance. So the dialog shows two groups, the acceptable one holding Not Annoying
 * and Annoying but Acceptable, the other Not Acceptable, and the value sent is the label's number:
 *   Not Annoying 2, Annoying but Acceptable 1, Not Acceptable 0
 * (acceptable iff value >= 1, annoying iff value <= 1; both thresholds can be estimated from one vote).
 */
export const ACCEPTABILITY_SCALE: LevelScale = {
  colored: false,
  levels: [
    { label: 'acceptabilityNotAnnoying', value: 2, group: 0 },
    { label: 'acceptabilityAnnoyingAcceptable', value: 1, group: 0 },
    { label: 'acceptabilityNotAcceptable', value: 0, group: 1 },
  ],
};

export type AccannParams = SingleParams & ScaleParams;

export function accannParams(job: JobResponse): AccannParams {
  return { ...pairParams(job), scale: ACCEPTABILITY_SCALE };
}
