import type { JobResponse } from '../../contract/job.js';
import type { LevelScale } from '../common/levels/levels.js';
import { pairParams } from '../pair/plan.js';
import type { ScaleParams } from '../common/levels/LevelResponse.js';
import type { SingleParams } from '../common/levels/singleStimulus.js';

/**
 * ACR (ITU-T P.910) five-level scale, best first. SPEC §5/§9: the stored value is the level index 0-4
 * (Excellent 0 ... Bad 4). Coloured mode (job.coloredScale) paints the two good levels green, Fair orange and the
 * two bad levels red (SPEC §9: green, orange and red).
 */
export function acrScale(colored: boolean): LevelScale {
  return {
    colored,
    levels: [
      { label: 'acrExcellent', value: 0, color: 'green' },
      { label: 'acrGood', value: 1, color: 'green' },
      { label: 'acrFair', value: 2, color: 'orange' },
      { label: 'acrPoor', value: 3, color: 'red' },
      { label: 'acrBad', value: 4, color: 'red' },
    ],
  };
}

export type AcrParams = SingleParams & ScaleParams;

export function acrParams(job: JobResponse): AcrParams {
  return { ...pairParams(job), scale: acrScale(job.coloredScale === true) };
}
