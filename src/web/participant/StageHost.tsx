import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { isTerminal, type Phase } from '../flow/phases.js';
import { useGlimpseStore } from '../flow/StoreContext.js';
import type { LoadedMedia, StageController } from '../stage/types.js';

/** The stage chunk (PixiJS) loads only when asked: never part of the first screens' bundle. */
export const loadStageChunk = () => import('../stage/Stage.js');
const Stage = lazy(loadStageChunk);

/**
 * The one persistent PixiJS stage of the page, below the question band when there is one, mounted from the first
 * Loading phase to the end and only hidden between uses, so its clock keeps its measured refresh and its textures
 * stay uploaded.
 */
export function StageHost({ visible, top, background, onReady }: { visible: boolean; top: number; background: string; onReady(c: StageController): void }) {
  const store = useGlimpseStore();
  const lookup = useCallback((name: string): LoadedMedia | undefined => store.getState().media?.get(name), [store]);
  return (
    <div className={`stage-host${visible ? '' : ' hidden'}`} style={{ top }} id="stage-host">
      <Suspense fallback={null}>
        <Stage media={lookup} background={background} onReady={onReady} />
      </Suspense>
    </div>
  );
}

/**
 * When a page has its stage: PixiJS is fetched while the participant reads the instructions, the stage is mounted
 * from the first Loading phase on and dropped at a terminal phase (its controller with it).
 */
export function useStageLifecycle(phase: Phase): { stageMounted: boolean; controller: StageController | null; setController(c: StageController): void } {
  const [controller, setController] = useState<StageController | null>(null);
  const [stageMounted, setStageMounted] = useState(false);
  useEffect(() => {
    if (phase === 'Instruction') void loadStageChunk();
    if (phase === 'Loading') setStageMounted(true);
    if (isTerminal(phase)) {
      setStageMounted(false);
      setController(null);
    }
  }, [phase]);
  return { stageMounted, controller, setController };
}
