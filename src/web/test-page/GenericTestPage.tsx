import { useEffect, useState } from 'react';
import { useParams } from 'react-router-dom';
import type { RatingProtocol } from '../../contract/protocols.js';
import { isTerminal } from '../flow/phases.js';
import { parseQuery } from '../flow/query.js';
import { loadJob } from '../flow/session.js';
import { createGlimpseStore } from '../flow/store.js';
import { StoreProvider, useGlimpse } from '../flow/StoreContext.js';
import { moduleOf } from '../protocols/registry.js';
import { FullscreenDialog } from '../screens/FullscreenDialog.js';
import { OrientationDialog } from '../screens/OrientationDialog.js';
import type { StageController } from '../stage/types.js';
import { QUESTION_BAND_PX, questionAlongTest } from './layout.js';
import { PhaseView, preloadJourneyScreens } from './PhaseView.js';
import { loadStageChunk, StageHost } from './StageHost.js';
import './testPage.css';

/** The generic test page (SPEC §2): one component for the seven rating protocols, told which one by its route. */
export default function GenericTestPage({ protocol }: { protocol: RatingProtocol }) {
  const { id = '' } = useParams();
  const [store] = useState(() => createGlimpseStore({ jobId: id, protocol, query: parseQuery(window.location.search) }));

  useEffect(() => {
    preloadJourneyScreens();
    const stopLogger = store.logger.start(window);
    const detachSender = store.logsSender.attach(window);
    if (moduleOf(protocol)) void loadJob(store);
    else store.getState().dispatch({ type: 'CONFIG_INCOMPATIBLE' });
    return () => {
      detachSender();
      stopLogger();
    };
  }, [store, protocol]);

  return (
    <StoreProvider store={store}>
      <TestPageBody protocol={protocol} />
    </StoreProvider>
  );
}

/** The fullscreen request follows the eligibility checks (SPEC §2 bubble flow order) and lasts until the result. */
function wantsFullscreenDialog(phase: string, eligibilityStep: string): boolean {
  return phase === 'Instruction' || phase === 'Loading' || phase === 'Test' || (phase === 'Eligibility' && eligibilityStep === 'visual');
}

function TestPageBody({ protocol }: { protocol: RatingProtocol }) {
  const phase = useGlimpse((s) => s.flow.phase);
  const eligibilityStep = useGlimpse((s) => s.flow.eligibilityStep);
  const job = useGlimpse((s) => s.job);
  const [controller, setController] = useState<StageController | null>(null);
  const [stageMounted, setStageMounted] = useState(false);
  const module = moduleOf(protocol);

  useEffect(() => {
    // Fetch PixiJS while the participant reads; mount the stage from the first Loading on, until the end.
    if (phase === 'Instruction') void loadStageChunk();
    if (phase === 'Loading') setStageMounted(true);
    if (isTerminal(phase)) {
      setStageMounted(false);
      setController(null);
    }
  }, [phase]);

  const inTest = phase === 'Test';
  const background = job?.backgroundColor ?? '#808080';
  return (
    <div style={inTest ? { background, minHeight: '100vh' } : undefined}>
      <PhaseView module={module} controller={controller} />
      {stageMounted && job && module && (
        <StageHost
          visible={inTest && module.categories.includes(job.category_id)}
          top={questionAlongTest(job.category_id) ? QUESTION_BAND_PX : 0}
          background={background}
          onReady={setController}
        />
      )}
      {job?.requestFullScreen === 1 && wantsFullscreenDialog(phase, eligibilityStep) && <FullscreenDialog />}
      <OrientationDialog />
    </div>
  );
}
