import { useCallback, useRef, useState } from 'react';
import { useParams } from 'react-router-dom';
import { parseQuery } from '../flow/query.js';
import { createGlimpseStore } from '../flow/store.js';
import { StoreProvider, useGlimpse } from '../flow/StoreContext.js';
import { FullscreenDialog, wantsFullscreenDialog } from '../screens/FullscreenDialog.js';
import type { BubbleStageController } from '../stage/bubble/types.js';
import type { Rect } from '../stage/types.js';
import { PhaseView } from '../test-page/PhaseView.js';
import { useStageLifecycle } from '../test-page/StageHost.js';
import { useJourneyStart } from '../test-page/useJourneyStart.js';
import '../test-page/testPage.css';
import { isFreeTask, parseBubbleQuery, type BubbleQuery } from './bubbleQuery.js';
import { BubbleStageHost, loadBubbleStageChunk } from './BubbleStageHost.js';
import { BubbleTest } from './BubbleTest.js';
import { toCanvas } from './geometry.js';
import { createSampleStore } from './sampleStore.js';
import type { LayoutRef, StimulusMapping } from './useBubbleTrials.js';
import { usePointerSamples } from './usePointerSamples.js';
import './bubble.css';

/**
 * /bubble/{id} (SPEC §2 "Bubble page"): where people look, without an eye tracker. The journey is the shared one
 * (phase machine, store, screens): landing, eligibility with the bubble rules (Chrome; Linux, Mac OS, Windows 10,
 * 7, 8, 8.1), the fullscreen request when the job asks for it, the optional visual tests, welcome and
 * instructions, optional training, loading, test, result, and the failure screens. The Test screen is the
 * bubble's own: the stimulus blurred except for a clear window at the pointer, drawn by the bubble stage.
 */
export default function BubblePage() {
  const { id = '' } = useParams();
  const [bubbleQuery] = useState(() => parseBubbleQuery(window.location.search));
  const [store] = useState(() => {
    const query = parseQuery(window.location.search);
    // The server completes a free-task session on its mouse logs: tell it (contract: ft is forwarded for bubble).
    if (isFreeTask(bubbleQuery)) query.forwarded.ft = '1';
    return createGlimpseStore({ jobId: id, protocol: 'bubble', query });
  });

  useJourneyStart(store);

  return (
    <StoreProvider store={store}>
      <BubbleBody query={bubbleQuery} />
    </StoreProvider>
  );
}

function BubbleBody({ query }: { query: BubbleQuery }) {
  const phase = useGlimpse((s) => s.flow.phase);
  const eligibilityStep = useGlimpse((s) => s.flow.eligibilityStep);
  const job = useGlimpse((s) => s.job);
  const { stageMounted, controller, setController } = useStageLifecycle<BubbleStageController>(phase, loadBubbleStageChunk);
  const [samples] = useState(createSampleStore);
  const mapping: StimulusMapping = useRef((x: number, y: number) => ({ x, y }));
  const layout: LayoutRef = useRef(null);
  const [area, setArea] = useState<Rect | null>(null);
  usePointerSamples(samples, mapping);
  // The renderer reads this once per frame: the latest sample, in canvas px.
  const pointer = useCallback(() => {
    const latest = samples.getState().latest;
    return latest && layout.current ? toCanvas(latest.clientX, latest.clientY, layout.current) : null;
  }, [samples]);

  const inTest = phase === 'Test';
  const background = job?.backgroundColor ?? '#808080';
  return (
    <div className="bubble-page" style={inTest ? { background, minHeight: '100vh' } : undefined}>
      <PhaseView
        module={null}
        controller={null}
        eligibilityPage="bubble"
        testScreen={<BubbleTest controller={controller} samples={samples} mapping={mapping} layout={layout} onArea={setArea} query={query} freeTask={isFreeTask(query)} />}
      />
      {stageMounted && job && <BubbleStageHost area={area} visible={inTest} background={background} pointer={pointer} onReady={setController} />}
      {job?.requestFullScreen === 1 && wantsFullscreenDialog(phase, eligibilityStep) && <FullscreenDialog />}
    </div>
  );
}
