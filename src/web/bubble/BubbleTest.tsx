import { useCallback, useEffect, useMemo } from 'react';
import { useGlimpse, useGlimpseStore } from '../flow/StoreContext.js';
import { useStrings } from '../screens/useStrings.js';
import { QUESTION_BAND_PX, questionAlongTest } from '../test-page/layout.js';
import { useRunStimuli, useUnreadableStimuliEnd } from '../test-page/useRunStimuli.js';
import { CenteringGate } from './CenteringGate.js';
import { CentreMark } from './CentreMark.js';
import { EmotionModal } from './EmotionModal.js';
import { ExplorePrompt } from './ExplorePrompt.js';
import { PairRatingModal } from './PairRatingModal.js';
import { emotionValue, pairValue } from './payloads.js';
import { orderStimuli, readBubbleStimuli } from './stimuli.js';
import { useBubbleTrials, type BubbleStageWiring } from './useBubbleTrials.js';

export type BubbleTestProps = BubbleStageWiring;

/**
 * The bubble Test phase (training or test): the DOM over the bubble stage — centering gate, the click hint, the
 * mark during the pause, the rating modal (pair or emotion) and the exploration prompt. The cursor is hidden
 * while a stimulus is on screen (the clear window is where the pointer is).
 */
export function BubbleTest(props: BubbleTestProps) {
  const store = useGlimpseStore();
  const t = useStrings();
  const job = useGlimpse((s) => s.job)!;
  const { training, stimuli: read, onDone } = useRunStimuli(readBubbleStimuli);
  // rs=1 shuffles the test; the training keeps its order.
  const stimuli = useMemo(() => read && orderStimuli(read, props.query.randomOrder && !training), [read, training, props.query.randomOrder]);
  const run = useBubbleTrials({ ...props, store, stimuli: stimuli ?? [], training, onDone });
  useUnreadableStimuliEnd('bubble', stimuli);

  const step = run.trial.step;
  const hideCursor = step.kind === 'ready' || step.kind === 'playing';
  useEffect(() => {
    document.body.classList.toggle('bubble-no-cursor', hideCursor);
    return () => document.body.classList.remove('bubble-no-cursor');
  }, [hideCursor]);
  const { onArea } = props;
  useEffect(() => () => onArea(null), [onArea]);

  const onCentered = useCallback(() => run.send({ type: 'CENTERED' }), [run.send]);
  if (!run.stimulus || !run.plan) return null;
  const video = run.plan.media[0]!.kind === 'video';
  const total = stimuli?.length ?? 0;
  return (
    <>
      {/* Where the trial stands, for tests and logs (not shown). */}
      <div
        id="bubble-trial"
        hidden
        data-step={step.kind}
        data-index={run.trial.index}
        data-replays={run.trial.replays}
        data-stimulus={run.stimulus.stimuli_id}
        data-training={String(training)}
        data-awaiting-click={String(run.awaitingClick)}
      />
      {questionAlongTest(job.category_id) && (
        <div className="question-band" id="question" style={{ height: QUESTION_BAND_PX, background: job.backgroundColor }}>
          {job.question}
        </div>
      )}
      {step.kind === 'centering' && <CenteringGate key={`${run.trial.index}:${run.trial.replays}`} samples={props.samples} repetition={step.reason === 'repeat'} onCentered={onCentered} />}
      {run.awaitingClick && (
        <p className="bubble-hint" id="bubble-click-hint">
          {t.bubbleClickToStart}
        </p>
      )}
      {run.pausing && <CentreMark />}
      {run.mediaError === 'video' && (
        <p className="test-message" id="video-unsupported">
          {t.videoUnsupported}
        </p>
      )}
      {step.kind === 'rating' &&
        (props.query.emotion ? (
          <EmotionModal
            key={`${run.trial.index}:${run.trial.replays}`}
            video={video}
            index={run.trial.index}
            total={total}
            questionAlongTest={questionAlongTest(job.category_id)}
            busy={run.busy}
            onAnswer={(index) => run.answer(emotionValue(index))}
          />
        ) : (
          <PairRatingModal question={job.question} video={video} index={run.trial.index} total={total} busy={run.busy} onAnswer={(choice) => run.answer(pairValue(choice))} />
        ))}
      {step.kind === 'explore' && <ExplorePrompt onYes={() => run.send({ type: 'EXPLORE_YES' })} onNo={() => run.send({ type: 'EXPLORE_NO' })} />}
    </>
  );
}
