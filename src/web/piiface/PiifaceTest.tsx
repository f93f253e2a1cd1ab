import { useEffect } from 'react';
import { useGlimpse, useGlimpseStore } from '../flow/StoreContext.js';
import { fill } from '../i18n/format.js';
import { useFullscreenCheck } from '../screens/useFullscreen.js';
import { useStrings } from '../screens/useStrings.js';
import type { StageController } from '../stage/types.js';
import { useRunStimuli, useUnreadableStimuliEnd } from '../test-page/useRunStimuli.js';
import { expectedEmotionIndex } from './answers.js';
import { AnswerPanel } from './AnswerPanel.js';
import type { TrialPosition } from './progressTracker.js';
import { readPiifaceStimuli } from './stimuli.js';
import { useFaceTrials } from './useFaceTrials.js';

export interface PiifaceTestProps {
  controller: StageController | null;
  /** Written here, read by the progress tracker every 100 ms. */
  position: { current: TrialPosition | null };
}

/**
 * The piiface Test phase (training or test run): the face drawn on the stage behind an element carrying its alt
 * text (the canvas itself says nothing to assistive technology), and the answer panel beside it.
 */
export function PiifaceTest({ controller, position }: PiifaceTestProps) {
  const store = useGlimpseStore();
  const t = useStrings();
  const job = useGlimpse((s) => s.job)!;
  const { fullscreen } = useFullscreenCheck();
  const { training, stimuli, onDone } = useRunStimuli(readPiifaceStimuli);
  const run = useFaceTrials({ store, stimuli: stimuli ?? [], training, controller, onDone });
  useUnreadableStimuliEnd('piiface', stimuli, onDone);

  const total = stimuli?.length ?? 0;
  useEffect(() => {
    position.current = run.status === 'preparing' ? position.current : { training, index: run.index, total };
  }, [position, training, run.index, run.status, total]);
  useEffect(() => () => void (position.current = null), [position]);

  if (!run.stimulus) return null;
  return (
    <>
      <div id="piiface-trial" hidden data-status={run.status} data-index={run.index} data-training={String(training)} data-stimulus={run.stimulus.stimuli_id} />
      {run.status === 'preparing' && (
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
        expected={training ? expectedEmotionIndex(run.stimulus.type) : null}
        ready={run.status !== 'preparing'}
        busy={run.status === 'saving'}
        imageFailed={run.imageFailed}
        fullscreenMissing={job.requestFullScreen === 1 && !fullscreen}
        onNext={run.next}
      />
    </>
  );
}
