import { lazy, Suspense, type ReactNode } from 'react';
import { useGlimpse } from '../flow/StoreContext.js';
import type { AnyProtocolModule } from '../protocols/types.js';
import { EndScreen } from '../screens/EndScreen.js';
import { FailEligibility } from '../screens/FailEligibility.js';
import type { EligibilityPage } from '../screens/eligibility/rules.js';
import { FailureScreen } from '../screens/FailureScreen.js';
import { MediaLoading } from '../screens/MediaLoading.js';
import { Spinner } from '../screens/Spinner.js';
import { useStrings } from '../screens/useStrings.js';
import type { StageController } from '../stage/types.js';
import { TestScreen } from './TestScreen.js';

// Screens with heavy dependencies (ua-parser-js, DOMPurify) are separate chunks, fetched while the job loads
// (preloadJourneyScreens), so the first paint stays small. Screens few participants see load on demand.
const loadEligibility = () => import('../screens/eligibility/EligibilityScreen.js');
const loadWelcome = () => import('../screens/Welcome.js');
const loadInstructions = () => import('../screens/Instructions.js');
const EligibilityScreen = lazy(() => loadEligibility().then((m) => ({ default: m.EligibilityScreen })));
const Welcome = lazy(() => loadWelcome().then((m) => ({ default: m.Welcome })));
const Instructions = lazy(() => loadInstructions().then((m) => ({ default: m.Instructions })));
const VisualTest = lazy(() => import('../screens/visual/VisualTest.js').then((m) => ({ default: m.VisualTest })));
const ConsentForm = lazy(() => import('../screens/consent/ConsentForm.js').then((m) => ({ default: m.ConsentForm })));

export function preloadJourneyScreens(): void {
  void Promise.all([loadEligibility(), loadWelcome(), loadInstructions()]).catch((error: unknown) => console.log('screen preload failed', error));
}

export interface PhaseViewProps {
  module: AnyProtocolModule | null;
  controller: StageController | null;
  /** Eligibility rules of the page (SPEC §5); default 'generic'. */
  eligibilityPage?: EligibilityPage;
  /** A page with its own Test screen (piiface) gives it here; default: the protocol module's TestScreen. */
  testScreen?: ReactNode;
}

/** The DOM screen of the current phase (SPEC §2 screens, §4 phases). */
export function PhaseView(props: PhaseViewProps) {
  const t = useStrings();
  return (
    <Suspense fallback={<Spinner text={t.loading} />}>
      <PhaseScreen {...props} />
    </Suspense>
  );
}

function PhaseScreen({ module, controller, eligibilityPage, testScreen }: PhaseViewProps) {
  const t = useStrings();
  const flow = useGlimpse((s) => s.flow);
  const job = useGlimpse((s) => s.job);
  const email = useGlimpse((s) => s.query.email);
  const dispatch = useGlimpse((s) => s.dispatch);
  switch (flow.phase) {
    case 'Landing':
      return <Spinner text={t.loading} />;
    case 'Eligibility':
      if (flow.eligibilityStep === 'checks') return <EligibilityScreen page={eligibilityPage} />;
      return (
        <VisualTest
          order={job?.visualTests ?? []}
          strings={t}
          onPass={() => dispatch({ type: 'VISUAL_PASSED' })}
          onExit={() => dispatch({ type: 'VISUAL_FAILED' })}
        />
      );
    case 'Instruction':
      if (flow.instructionStep === 'welcome') return <Welcome />;
      if (flow.instructionStep === 'consent') {
        return <ConsentForm email={email} strings={t} onDone={() => dispatch({ type: 'CONSENT_DONE' })} />;
      }
      return <Instructions image={module?.instructionImage} />;
    case 'Loading':
      return <MediaLoading />;
    case 'Test':
      if (testScreen !== undefined) return testScreen;
      return module ? <TestScreen module={module} controller={controller} /> : <FailureScreen />;
    case 'Result':
      return <EndScreen />;
    case 'FailEligibility':
      return <FailEligibility />;
    case 'Fail':
      return <FailureScreen />;
  }
}
