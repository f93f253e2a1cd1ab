import type { JobResponse } from '../../../contract/job.js';
import type { StagedModule } from '../../types.js';
import { LevelResponse, type ScaleParams } from './LevelResponse.js';
import { levelOf } from './levels.js';
import { planSingle, SINGLE_CATEGORIES, singleMedia, type SingleParams } from './singleStimulus.js';

/**
 * A category-scale staged protocol (ACR, DSIS, acceptability): the level dialog answers the picked level's value,
 * and that value is stored as is (SPEC §5: each protocol's value mapping is its scale table).
 */
export function scaleProtocol<P extends ScaleParams>(parts: Pick<StagedModule<P, number>, 'categories' | 'params' | 'mediaOf' | 'plan'>): StagedModule<P, number> {
  return {
    kind: 'staged',
    ...parts,
    ResponseView: LevelResponse,
    value: (answer) => answer,
    answerLabel: (value, _stimulus, params, strings) => {
      const level = levelOf(params.scale, value);
      return level ? strings[level.label] : null;
    },
  };
}

/** A single-stimulus scale (ACR, acceptability): one image or video (categoryTest 1, 2 or 5), then the levels. */
export function singleStimulusScaleProtocol<P extends SingleParams & ScaleParams>(params: (job: JobResponse) => P): StagedModule<P, number> {
  return scaleProtocol<P>({ categories: SINGLE_CATEGORIES, params, mediaOf: (stimulus) => singleMedia(stimulus), plan: planSingle });
}
