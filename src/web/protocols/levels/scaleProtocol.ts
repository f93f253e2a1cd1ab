import type { ProtocolModule } from '../types.js';
import { LevelResponse, type ScaleParams } from './LevelResponse.js';
import { planSingle, SINGLE_CATEGORIES, singleMedia, type SingleParams } from './singleStimulus.js';

/** What a category-scale protocol states itself: everything but the dialog and the value mapping. */
export type ScaleProtocolParts<P> = Omit<ProtocolModule<P, number>, 'ResponseView' | 'value'>;

/**
 * A category-scale protocol (ACR, DSIS, acceptability): the level dialog answers the picked level's value, and that
 * value is stored as is (SPEC §5: each protocol's value mapping is its scale table).
 */
export function scaleProtocol<P extends ScaleParams>(parts: ScaleProtocolParts<P>): ProtocolModule<P, number> {
  return { ...parts, ResponseView: LevelResponse, value: (answer) => answer };
}

/** A single-stimulus scale (ACR, acceptability): one image or video (categoryTest 1, 2 or 5), then the levels. */
export function singleStimulusScaleProtocol<P extends SingleParams & ScaleParams>(
  parts: Pick<ScaleProtocolParts<P>, 'name' | 'params' | 'instructionImage'>,
): ProtocolModule<P, number> {
  return scaleProtocol<P>({ ...parts, categories: SINGLE_CATEGORIES, mediaOf: (stimulus) => singleMedia(stimulus), plan: planSingle });
}
