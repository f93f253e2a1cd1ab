import { useState } from 'react';
import { useParams } from 'react-router-dom';
import type { RatingProtocol } from '../../contract/protocols.js';
import { parseQuery } from '../flow/query.js';
import { createGlimpseStore } from '../flow/store.js';
import { StoreProvider, useGlimpse } from '../flow/StoreContext.js';
import { moduleOf } from '../protocols/registry.js';
import { FullscreenDialog, wantsFullscreenDialog } from '../screens/FullscreenDialog.js';
import { OrientationDialog } from '../screens/OrientationDialog.js';
import { QUESTION_BAND_PX, questionAlongTest } from './layout.js';
import { PhaseView } from './PhaseView.js';
import { StageHost, useStageLifecycle } from './StageHost.js';
import { useJourneyStart } from './useJourneyStart.js';
import './testPage.css';

/** The generic test page (SPEC §2): one component for the seven rating protocols, told which one by its route. */
export default function GenericTestPage({ protocol }: { protocol: RatingProtocol }) {
  const { id = '' } = useParams();
  const [store] = useState(() => createGlimpseStore({ jobId: id, protocol, query: parseQuery(window.location.search) }));

  useJourneyStart(store, moduleOf(protocol) !== null);

  return (
    <StoreProvider store={store}>
      <TestPageBody protocol={protocol} />
    </StoreProvider>
  );
}

function TestPageBody({ protocol }: { protocol: RatingProtocol }) {
  const phase = useGlimpse((s) => s.flow.phase);
  const eligibilityStep = useGlimpse((s) => s.flow.eligibilityStep);
  const job = useGlimpse((s) => s.job);
  const { stageMounted, controller, setController } = useStageLifecycle(phase);
  const module = moduleOf(protocol);

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
