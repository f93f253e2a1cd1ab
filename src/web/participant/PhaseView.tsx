import { lazy, Suspense } from 'react';
import type { PlaylistStimulus } from '../../contract/playlist.js';
import type { WebModule } from '../../protocols/types.js';
import { showsObjects } from '../../protocols/common/objects.js';
import { useGlimpse } from '../flow/StoreContext.js';
import type { GlimpseState } from '../flow/store.js';
import { EndScreen } from '../screens/EndScreen.js';
import { FailEligibility } from '../screens/FailEligibility.js';
import { FailureScreen } from '../screens/FailureScreen.js';
import { MediaLoading } from '../screens/MediaLoading.js';
import { Spinner } from '../screens/Spinner.js';
import { useStrings } from '../screens/useStrings.js';
import type { StageController } from '../stage/types.js';
import { StagedPhase } from './StagedPhase.js';

// Screens with heavy dependencies (ua-parser-js, DOMPurify) are separate chunks, fetched while the job loads
// (preloadJourneyScreens), so the first paint stays small. Screens few participants see load on demand.
const loadEligibility = () => import('../screens/eligibility/EligibilityScreen.js');
const loadWelcome = () => import('../screens/Welcome.js');
const loadInstructions = () => import('../screens/Instructions.js');
const EligibilityScreen = lazy(() => loadEligibility().then((m) => ({ default: m.EligibilityScreen })));
const Welcome = lazy(() => loadWelcome().then((m) => ({ default: m.Welcome })));
const Instructions = lazy(() => loadInstructions().then((m) => ({ default: m.Instructions })));
const VisualScreening = lazy(() => import('../screens/visual/VisualScreening.js').then((m) => ({ default: m.VisualScreening })));
const ConsentForm = lazy(() => import('../screens/consent/ConsentForm.js').then((m) => ({ default: m.ConsentForm })));

export function preloadJourneyScreens(): void {
  void Promise.all([loadEligibility(), loadWelcome(), loadInstructions()]).catch((error: unknown) => console.log('screen preload failed', error));
}

/**
 * The instruction image: the protocol's, or its 3D one when the study shows 3D objects (a landscape picture would
 * tell the participant the wrong thing); none until the playlist tells which, so the image never changes under them.
 */
function instructionImageOf(s: GlimpseState): string | undefined {
  const { instructionImage, objectInstructionImage } = s.protocol;
  if (objectInstructionImage === undefined) return instructionImage;
  if (!s.playlist) return undefined;
  const stimuli = [...s.playlist.stimulis, ...(s.playlist.stimulis_training ?? [])] as PlaylistStimulus[];
  return stimuli.some(showsObjects) ? objectInstructionImage : instructionImage;
}

/** The protocol's web part, loaded, with its own query parameters parsed (interactive protocols). */
export interface LoadedProtocol {
  module: WebModule;
  query: unknown;
}

export interface PhaseViewProps {
  /** The protocol's web part, once loaded. */
  protocol: LoadedProtocol | null;
  stage: StageController | null;
}

/** The DOM screen of the current phase (SPEC §2 screens, §4 phases). Screens show the store and dispatch user events. */
export function PhaseView(props: PhaseViewProps) {
  const t = useStrings();
  return (
    <Suspense fallback={<Spinner text={t.loading} />}>
      <PhaseScreen {...props} />
    </Suspense>
  );
}

function PhaseScreen({ protocol, stage }: PhaseViewProps) {
  const t = useStrings();
  const flow = useGlimpse((s) => s.flow);
  const job = useGlimpse((s) => s.job);
  const email = useGlimpse((s) => s.query.email);
  const instructionImage = useGlimpse(instructionImageOf);
  const dispatch = useGlimpse((s) => s.dispatch);
  switch (flow.phase) {
    case 'Landing':
      return <Spinner text={t.loading} />;
    case 'Eligibility':
      if (flow.eligibilityStep === 'checks') return <EligibilityScreen />;
      return (
        <VisualScreening
          order={job?.visualTests ?? []}
          strings={t}
          onPass={() => dispatch({ type: 'VISUAL_PASSED' })}
          onExit={() => dispatch({ type: 'VISUAL_FAILED' })}
        />
      );
    case 'Instruction':
      if (flow.instructionStep === 'welcome') return <Welcome />;
      if (flow.instructionStep === 'consent') {
        return <ConsentForm email={email} strings={t} onSubmit={(form) => dispatch({ type: 'CONSENT_SIGNED', form })} />;
      }
      return <Instructions image={instructionImage} />;
    case 'Loading':
      return <MediaLoading />;
    case 'Test':
      if (!protocol) return <Spinner text={t.loading} />;
      if (protocol.module.kind === 'staged') return <StagedPhase module={protocol.module} stage={stage} />;
      return <protocol.module.TestView query={protocol.query} stage={stage} />;
    case 'Result':
      return <EndScreen />;
    case 'FailEligibility':
      return <FailEligibility />;
    case 'Fail':
      return <FailureScreen />;
  }
}
