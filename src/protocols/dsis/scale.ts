import type { JobResponse } from '../../contract/job.js';
import type { PlaylistStimulus } from '../../contract/playlist.js';
import type { PresentationStep } from '../../web/stage/types.js';
import type { ScaleParams } from '../common/levels/LevelResponse.js';
import type { LevelScale } from '../common/levels/levels.js';
import { LEVELS_DIALOG } from '../common/objects.js';
import { pairMedia, pairParams, planPair, type PairParams } from '../pair/plan.js';
import type { PlanContext } from '../types.js';

/**
 * DSIS (ITU-R BT.500) five-grade impairment scale, best first. SPEC §5 leaves the numbers to us ("sent as given"):
 * we send the ITU grades, Imperceptible 5 ... Very annoying 1, so a mean is directly a DMOS on the ITU scale and a
 * training example's `value` is written the same way.
 */
export const IMPAIRMENT_SCALE: LevelScale = {
  colored: false,
  levels: [
    { label: 'impairmentImperceptible', value: 5 },
    { label: 'impairmentPerceptible', value: 4 },
    { label: 'impairmentSlightlyAnnoying', value: 3 },
    { label: 'impairmentAnnoying', value: 2 },
    { label: 'impairmentVeryAnnoying', value: 1 },
  ],
};

export type DsisParams = PairParams & ScaleParams;

export function dsisParams(job: JobResponse): DsisParams {
  return { ...pairParams(job), scale: IMPAIRMENT_SCALE };
}

/**
 * The reference (sourceA) and the impaired stimulus (sourceB), laid out like a pair of the job's categoryTest
 * (1/3 side by side, 2/4 one after another with the 1000 ms gap). The reference always comes first (left): a
 * `reversed` flag or extra sources are ignored.
 */
function referenceThenImpaired(stimulus: PlaylistStimulus): PlaylistStimulus {
  return { stimuliId: stimulus.stimuliId, sourceA: stimulus.sourceA, sourceB: stimulus.sourceB, reversed: false };
}

export function dsisMedia(stimulus: PlaylistStimulus, params: DsisParams): string[] {
  return pairMedia(referenceThenImpaired(stimulus), params);
}

export function planDsis(stimulus: PlaylistStimulus, ctx: PlanContext<DsisParams>): PresentationStep[] {
  return planPair(referenceThenImpaired(stimulus), ctx, LEVELS_DIALOG);
}
