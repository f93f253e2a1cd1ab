import { useCallback, useEffect, useMemo } from 'react';
import { inTraining } from '../flow/phases.js';
import { useGlimpse, useGlimpseStore } from '../flow/StoreContext.js';
import { useStrings } from '../screens/useStrings.js';
import type { BubbleStageController } from '../stage/bubble/types.js';
import { QUESTION_BAND_PX, questionAlongTest } from '../test-page/layout.js';
import type { BubbleQuery } from './bubbleQuery.js';
import { CenteringGate } from './CenteringGate.js';
import { CentreMark } from './CentreMark.js';
import { EmotionModal } from './EmotionModal.js';
import { ExplorePrompt } from './ExplorePrompt.js';
import type { BubbleLayout } from './geometry.js';
import { PairRatingModal } from './PairRatingModal.js';
import { emotionValue, pairValue } from './payloads.js';
import type { SampleStore } from './sampleStore.js';
import { orderStimuli, readBubbleStimuli } from './stimuli.js';
import { useBubbleTrials, type LayoutRef, type StimulusMapping } from './useBubbleTrials.js';

export interface BubbleTestProps {
  controller: BubbleStageController | null;
  samples: SampleStore;
  mapping: StimulusMapping;
  layout: LayoutRef;
  onArea(area: BubbleLayout['area'] | null): void;
  query: BubbleQuery;
  freeTask: boolean;
}

/**
 * The bubble Test phase (training or test): the DOM over the bubble stage — centering gate, the click hint, the
 * mark during the pause, the rating modal (pair or emotion) and the exploration prompt. The cursor is hidden
 * while a stimulus is on screen (the clear window is where the pointer is).
 */
export function BubbleTest(props: BubbleTestProps) {
  const store = useGlimpseStore();
  const t = useStrings();
  const job = useGlimpse((s) => s.job)!;
  const playlist = useGlimpse((s) => s.playlist);
  const training = useGlimpse((s) => inTraining(s.flow));
  const dispatch = useGlimpse((s) => s.dispatch);
  const stimuli = useMemo(() => {
    const list = readBubbleStimuli((training ? playlist?.stimulis_training : playlist?.stimulis) ?? []);
    // rs=1 shuffles the test; the training keeps its order.
    return list && orderStimuli(list, props.query.randomOrder && !training);
  }, [training, playlist, props.query.randomOrder]);
  const onDone = useCallback(() => dispatch({ type: 'TEST_DONE' }), [dispatch]);
  const run = useBubbleTrials({ ...props, store, stimuli: stimuli ?? [], training, onDone });

  useEffect(() => {
    if (stimuli !== null) return;
    console.log('the playlist does not hold bubble stimuli');
    dispatch({ type: 'CONFIG_INCOMPATIBLE' });
  }, [stimuli, dispatch]);

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
