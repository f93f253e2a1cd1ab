import { lazy, Suspense, useCallback } from 'react';
import { useGlimpseStore } from '../flow/StoreContext.js';
import type { BubbleStageController, PointerSource } from '../stage/bubble/types.js';
import type { LoadedMedia, Rect } from '../stage/types.js';

/** The bubble stage chunk (PixiJS): fetched during the instructions, never in the first bundle. */
export const loadBubbleStageChunk = () => import('../stage/bubble/BubbleStage.js');
const BubbleStage = lazy(loadBubbleStageChunk);

/**
 * The page's one bubble canvas, placed over the media area of the stimulus on screen (client px), mounted from the
 * first Loading phase to the end and only hidden in between (its clock and blurred textures survive).
 */
export function BubbleStageHost(props: { area: Rect | null; visible: boolean; background: string; pointer: PointerSource; onReady(c: BubbleStageController): void }) {
  const store = useGlimpseStore();
  const lookup = useCallback((name: string): LoadedMedia | undefined => store.getState().media?.get(name), [store]);
  const area = props.area ?? { x: 0, y: 0, width: 1, height: 1 };
  return (
    <div
      className={`bubble-stage-host${props.visible && props.area ? '' : ' hidden'}`}
      id="bubble-stage"
      style={{ left: area.x, top: area.y, width: area.width, height: area.height }}
    >
      <Suspense fallback={null}>
        <BubbleStage media={lookup} background={props.background} pointer={props.pointer} onReady={props.onReady} />
      </Suspense>
    </div>
  );
}
