import { useEffect, useState } from 'react';
import { useParams } from 'react-router-dom';
import type { JobResponse } from '../../contract/job.js';
import type { ProtocolDefinition, WebModule } from '../../protocols/types.js';
import { answerPipelineOf } from '../flow/answers.js';
import { startJourney } from '../flow/journey.js';
import { keepPhaseHistory } from '../flow/phaseHistory.js';
import { parseQuery } from '../flow/query.js';
import { createGlimpseStore, type GlimpseStore } from '../flow/store.js';
import { StoreProvider, useGlimpse } from '../flow/StoreContext.js';
import { FullscreenDialog, wantsFullscreenDialog } from '../screens/FullscreenDialog.js';
import { OrientationDialog } from '../screens/OrientationDialog.js';
import { useStrings } from '../screens/useStrings.js';
import { QUESTION_BAND_PX, questionAlongTest } from './layout.js';
import { PhaseView, preloadJourneyScreens, type LoadedProtocol } from './PhaseView.js';
import { StageHost, useStageLifecycle } from './StageHost.js';
import './participant.css';

interface PageSetup {
  store: GlimpseStore;
  protocol: Promise<LoadedProtocol>;
}

function setUp(jobId: string, definition: ProtocolDefinition): PageSetup {
  const store = createGlimpseStore({ jobId, protocol: definition, query: parseQuery(window.location.search) });
  const protocol = definition.web().then(({ default: module }) => ({
    module,
    query: module.kind === 'interactive' ? module.parseQuery(window.location.search) : null,
  }));
  return { store, protocol };
}

/**
 * The one participant page (SPEC §2): every protocol route renders it, told its protocol. It makes the page's store,
 * starts the journey (flow/journey.ts), logs the interaction and sends the session logs once, and shows the screen
 * of the current phase over the one persistent stage; the protocol's web part (loaded on demand) runs the Test
 * phase. The fullscreen and orientation dialogs are the page's.
 */
export default function ParticipantPage({ protocol: definition }: { protocol: ProtocolDefinition }) {
  const { id = '' } = useParams();
  const [{ store, protocol }] = useState(() => setUp(id, definition));
  const [loaded, setLoaded] = useState<LoadedProtocol | null>(null);
  // Back or Forward landed on one of the study's own history entries: the page says the study goes on from here.
  const [returned, setReturned] = useState(false);

  useEffect(() => {
    preloadJourneyScreens();
    const stopHistory = keepPhaseHistory(store, window, setReturned);
    const stopLogger = store.logger.start(window);
    const detachSender = store.logsSender.attach(window);
    const playlistQuery = protocol.then(({ module, query }) => (module.kind === 'interactive' ? (module.playlistQuery?.(query) ?? {}) : {}));
    const stopJourney = startJourney(store, { playlistQuery });
    // Back online: what waits in the answer outbox goes now, not at the next answer.
    const sendWaiting = () => void answerPipelineOf(store, window).drain();
    window.addEventListener('online', sendWaiting);
    let mounted = true;
    protocol.then(
      (p) => mounted && setLoaded(p),
      (error: unknown) => {
        // The protocol's chunk could not be fetched: a connection problem.
        console.log('the protocol could not be loaded', error);
        store.getState().dispatch({ type: 'PLAYLIST_FAILED' });
      },
    );
    return () => {
      mounted = false;
      window.removeEventListener('online', sendWaiting);
      stopJourney();
      stopHistory();
      detachSender();
      stopLogger();
    };
  }, [store, protocol]);

  return (
    <StoreProvider store={store}>
      <PageBody protocol={loaded} returned={returned} />
    </StoreProvider>
  );
}

function PageBody({ protocol, returned }: { protocol: LoadedProtocol | null; returned: boolean }) {
  const t = useStrings();
  const phase = useGlimpse((s) => s.flow.phase);
  const eligibilityStep = useGlimpse((s) => s.flow.eligibilityStep);
  const job = useGlimpse((s) => s.job);
  const { stageMounted, controller, setController } = useStageLifecycle(phase);
  const module = protocol?.module ?? null;
  const inTest = phase === 'Test';
  const background = job?.backgroundColor ?? '#808080';
  const band = job && module && questionBandShown(module, job) ? QUESTION_BAND_PX : 0;
  return (
    <div className="participant-page" style={inTest ? { background, minHeight: '100vh' } : undefined}>
      {/* Not over the stimuli: in the test, Back changes nothing on screen. */}
      {returned && !inTest && (
        <p className="notice history-notice" id="history-notice" role="status">
          {t.historyNotice}
        </p>
      )}
      {module?.kind === 'interactive' && module.PageOverlay && <module.PageOverlay />}
      <PhaseView protocol={protocol} stage={controller} />
      {stageMounted && job && module && (
        <StageHost visible={inTest && stageUsable(module, job.category_id)} top={band} background={background} onReady={setController} />
      )}
      {job?.requestFullScreen === 1 && wantsFullscreenDialog(phase, eligibilityStep) && <FullscreenDialog />}
      <OrientationDialog />
    </div>
  );
}

/** SPEC §3: the question is shown along the test when categoryTest < 3 (an interactive protocol may say otherwise). */
export function questionBandShown(module: WebModule, job: JobResponse): boolean {
  if (module.kind === 'interactive' && module.questionBand) return module.questionBand(job);
  return questionAlongTest(job.category_id);
}

/** A staged protocol shows nothing on the stage for a categoryTest it cannot lay out ('Error of category'). */
function stageUsable(module: WebModule, categoryId: number): boolean {
  return module.kind === 'interactive' || module.categories.includes(categoryId);
}
