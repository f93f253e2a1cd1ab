import { useCallback, useEffect, useMemo } from 'react';
import { inTraining } from '../../web/flow/phases.js';
import { useGlimpse, useGlimpseStore } from '../../web/flow/StoreContext.js';
import { fill } from '../../web/i18n/format.js';
import { KeptAnswerNotice, SaveTrouble } from '../../web/participant/SaveTrouble.js';
import { WindowTooSmall } from '../../web/participant/WindowTooSmall.js';
import { useFullscreenCheck } from '../../web/screens/useFullscreen.js';
import { useStrings } from '../../web/screens/useStrings.js';
import type { InteractiveTestProps } from '../types.js';
import { AnswerPanel } from './AnswerPanel.js';
import { PANEL_WIDTH_PX } from './layout.js';
import { readPiifaceStimuli } from './stimuli.js';
import { expectedEmotionOfType } from './stimulusRules.js';
import { useFaceTrials } from './useFaceTrials.js';

/**
 * The piiface Test phase (training or test run): the face drawn on the stage behind an element carrying its alt
 * text (the canvas itself says nothing to assistive technology), and the answer panel beside it.
 */
export function PiifacePhase({ stage }: InteractiveTestProps<null>) {
  const store = useGlimpseStore();
  const t = useStrings();
  const job = useGlimpse((s) => s.job)!;
  const playlist = useGlimpse((s) => s.playlist);
  const training = useGlimpse((s) => inTraining(s.flow));
  const dispatch = useGlimpse((s) => s.dispatch);
  const { fullscreen } = useFullscreenCheck();
  const stimuli = useMemo(() => readPiifaceStimuli((training ? playlist?.stimulis_training : playlist?.stimulis) ?? []), [training, playlist]);
  const onDone = useCallback(() => dispatch({ type: 'TEST_DONE' }), [dispatch]);
  const run = useFaceTrials({ store, stimuli: stimuli ?? [], training, stage, scaling: job.scaling, onDone });

  useEffect(() => {
    if (stimuli !== null) return;
    console.log('the playlist does not hold piiface stimuli');
    dispatch({ type: 'CONFIG_INCOMPATIBLE' });
  }, [stimuli, dispatch]);

  if (!run.stimulus) return null;
  const total = stimuli?.length ?? 0;
  return (
    <>
      <div id="piiface-trial" hidden data-status={run.status} data-index={run.index} data-training={String(training)} data-stimulus={run.stimulus.stimuli_id} />
      {run.windowNeed && <WindowTooSmall need={run.windowNeed} clearRight={PANEL_WIDTH_PX} />}
      {run.status === 'preparing' && !run.windowNeed && (
        <p className="test-message" id="test-waiting">
          {run.index === 0 ? t.loadingStimuli : t.waitingNextStimuli}
        </p>
      )}
      {run.rect && (
        <div
          className="piiface-face"
          role="img"
          aria-label={t.piifaceImageAlt}
          data-media={run.stimulus.source}
          style={{ left: run.rect.x, top: run.rect.y, width: run.rect.width, height: run.rect.height }}
        />
      )}
      <AnswerPanel
        key={`${training}-${run.index}`}
        strings={t}
        question={job.question}
        progress={fill(training ? t.piifaceTrainingProgress : t.piifaceTestProgress, { index: run.index + 1, total })}
        training={training}
        expected={training ? expectedEmotionOfType(run.stimulus.type) : null}
        ready={run.status === 'showing'}
        busy={run.status === 'saving'}
        imageFailed={run.imageFailed}
        fullscreenMissing={job.requestFullScreen === 1 && !fullscreen}
        onNext={run.next}
      >
        <SaveTrouble />
        <KeptAnswerNotice />
      </AnswerPanel>
    </>
  );
}
