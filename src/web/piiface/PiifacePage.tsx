import { useRef, useState } from 'react';
import { useParams } from 'react-router-dom';
import { parseQuery } from '../flow/query.js';
import { createGlimpseStore } from '../flow/store.js';
import { StoreProvider, useGlimpse } from '../flow/StoreContext.js';
import { FullscreenDialog, wantsFullscreenDialog } from '../screens/FullscreenDialog.js';
import { PhaseView } from '../test-page/PhaseView.js';
import { StageHost, useStageLifecycle } from '../test-page/StageHost.js';
import { useJourneyStart } from '../test-page/useJourneyStart.js';
import '../test-page/testPage.css';
import { PiifaceTest } from './PiifaceTest.js';
import { ProgressBar } from './ProgressBar.js';
import type { TrialPosition } from './progressTracker.js';
import './piiface.css';

/**
 * /piiface/{id} (SPEC §2 "Piiface page"): the emotion-and-confidence test. The journey is the shared one (phase
 * machine, store, screens): landing, eligibility with the piiface rules (firefox and chrome), the fullscreen
 * request when the job asks for it, welcome and instructions with the optional training, loading, test, result,
 * and the failure screens. Only the Test screen is piiface's own. Its query has only `platform` (default prolific).
 */
export default function PiifacePage() {
  const { id = '' } = useParams();
  const [store] = useState(() => createGlimpseStore({ jobId: id, protocol: 'piiface', query: parseQuery(window.location.search) }));

  useJourneyStart(store);

  return (
    <StoreProvider store={store}>
      <PiifaceBody />
    </StoreProvider>
  );
}

function PiifaceBody() {
  const phase = useGlimpse((s) => s.flow.phase);
  const eligibilityStep = useGlimpse((s) => s.flow.eligibilityStep);
  const job = useGlimpse((s) => s.job);
  const { stageMounted, controller, setController } = useStageLifecycle(phase);
  // The image on screen, for the progress tracker (written by the test screen, polled every 100 ms).
  const position = useRef<TrialPosition | null>(null);

  const inTest = phase === 'Test';
  // SPEC §3: on the piiface page the job's background is read under its piiface spelling.
  const background = job?.background_color ?? job?.backgroundColor ?? '#808080';
  return (
    <div className="piiface-page" style={inTest ? { background, minHeight: '100vh' } : undefined}>
      <ProgressBar position={position} />
      <PhaseView module={null} controller={controller} eligibilityPage="piiface" testScreen={<PiifaceTest controller={controller} position={position} />} />
      {stageMounted && job && <StageHost visible={inTest} top={0} background={background} onReady={setController} />}
      {job?.requestFullScreen === 1 && wantsFullscreenDialog(phase, eligibilityStep) && <FullscreenDialog />}
    </div>
  );
}
