import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { interruptionPolicyOf } from '../../contract/job-options.js';
import type { BubblePlaylistStimulus } from '../../contract/playlist.js';
import { inTraining } from '../../web/flow/phases.js';
import { useGlimpse, useGlimpseStore } from '../../web/flow/StoreContext.js';
import { QUESTION_BAND_PX, questionAlongTest } from '../../web/participant/layout.js';
import { KeptAnswerNotice, SaveTrouble } from '../../web/participant/SaveTrouble.js';
import { WindowTooSmall } from '../../web/participant/WindowTooSmall.js';
import { useStrings } from '../../web/screens/useStrings.js';
import type { InteractiveTestProps } from '../types.js';
import { isFreeTask, type BubbleQuery } from './bubbleQuery.js';
import { CenteringGate } from './CenteringGate.js';
import { CentreMark } from './CentreMark.js';
import { EmotionModal } from './EmotionModal.js';
import { ExplorePrompt } from './ExplorePrompt.js';
import { PairRatingModal } from './PairRatingModal.js';
import { emotionValue, pairValue } from './payloads.js';
import { createSampleStore } from './sampleStore.js';
import { orderStimuli, readBubbleStimuli } from './stimuli.js';
import { useBubbleTrials, type StimulusMapping } from './useBubbleTrials.js';
import { usePointerSamples } from './usePointerSamples.js';

/**
 * The bubble Test phase (training or test): the DOM over the stage — centering gate, the click hint, the mark
 * during the pause, the rating modal (pair or emotion) and the exploration prompt. The cursor is hidden while a
 * stimulus is on screen (the clear window is where the pointer is).
 */
export function BubblePhase({ query, stage }: InteractiveTestProps<BubbleQuery>) {
  const store = useGlimpseStore();
  const t = useStrings();
  const job = useGlimpse((s) => s.job)!;
  const playlist = useGlimpse((s) => s.playlist);
  const training = useGlimpse((s) => inTraining(s.flow));
  const dispatch = useGlimpse((s) => s.dispatch);
  const onDone = useCallback(() => dispatch({ type: 'TEST_DONE' }), [dispatch]);
  const read = useMemo(() => readBubbleStimuli((training ? playlist?.stimulis_training : playlist?.stimulis) ?? []), [training, playlist]);
  // rs=1 shuffles the test; the training keeps its order.
  const stimuli = useMemo(() => read && orderStimuli(read, query.randomOrder && !training), [read, training, query.randomOrder]);
  const [samples] = useState(createSampleStore);
  const mapping: StimulusMapping = useRef((x: number, y: number) => ({ x, y }));
  usePointerSamples(samples, mapping);
  const interruptions = useMemo(() => interruptionPolicyOf(job), [job]);
  const run = useBubbleTrials({ store, stage, samples, mapping, query, freeTask: isFreeTask(query), stimuli: stimuli ?? [], training, scaling: job.scaling, interruptions, onDone });

  useEffect(() => {
    if (stimuli === null) {
      console.log('the playlist does not hold bubble stimuli');
      dispatch({ type: 'CONFIG_INCOMPATIBLE' });
    }
  }, [stimuli, dispatch]);

  const step = run.trial.step;
  const hideCursor = step.kind === 'ready' || step.kind === 'playing';
  useEffect(() => {
    document.body.classList.toggle('bubble-no-cursor', hideCursor);
    return () => document.body.classList.remove('bubble-no-cursor');
  }, [hideCursor]);

  const onCentered = useCallback(() => run.send({ type: 'CENTERED' }), [run.send]);
  if (!run.stimulus || !run.plan || !stage || !run.centre) return null;
  const centre = run.centre;
  const video = run.plan.media[0]!.kind === 'video';
  const total = stimuli?.length ?? 0;
  const band = questionAlongTest(job.category_id);
  return (
    <>
      {/* Where the trial stands, for tests and logs (not shown). */}
      <div
        id="bubble-trial"
        hidden
        data-step={step.kind}
        data-index={run.trial.index}
        data-replays={run.trial.replays}
        data-stimulus={(run.stimulus as BubblePlaylistStimulus).stimuli_id}
        data-training={String(training)}
        data-awaiting-click={String(run.awaitingClick)}
      />
      {band && (
        <div className="question-band" id="question" style={{ height: QUESTION_BAND_PX, background: job.backgroundColor }}>
          {query.emotion ? t.bubbleEmotionQuestion : isFreeTask(query) ? t.bubbleFreeTaskPrompt : job.question}
        </div>
      )}
      {step.kind === 'centering' && run.windowNeed && <WindowTooSmall need={run.windowNeed} />}
      {step.kind === 'centering' && step.reason === 'interrupted' && !run.windowNeed && (
        <p className="test-message bubble-interrupted" id="stage-interrupted">
          {t.stageInterrupted}
        </p>
      )}
      {step.kind === 'centering' && !run.windowNeed && (
        <CenteringGate key={`${run.trial.index}:${run.trial.replays}`} samples={samples} centre={centre} repetition={step.reason === 'repeat'} onCentered={onCentered} />
      )}
      {run.awaitingClick && (
        <p className="bubble-hint" id="bubble-click-hint" style={{ top: stage.clientRect().y + 8 }}>
          {t.bubbleClickToStart}
        </p>
      )}
      {run.pausing && <CentreMark centre={centre} />}
      {run.mediaError === 'video' && (
        <p className="test-message" id="video-unsupported">
          {t.videoUnsupported}
        </p>
      )}
      {step.kind === 'rating' &&
        (query.emotion ? (
          <EmotionModal
            key={`${run.trial.index}:${run.trial.replays}`}
            video={video}
            index={run.trial.index}
            total={total}
            questionAlongTest={band}
            busy={run.busy}
            onAnswer={(index) => run.answer(emotionValue(index))}
          />
        ) : (
          <PairRatingModal question={job.question} video={video} index={run.trial.index} total={total} busy={run.busy} onAnswer={(choice) => run.answer(pairValue(choice))} />
        ))}
      {step.kind === 'rating' && <SaveTrouble />}
      <KeptAnswerNotice />
      {step.kind === 'explore' && <ExplorePrompt onYes={() => run.send({ type: 'EXPLORE_YES' })} onNo={() => run.send({ type: 'EXPLORE_NO' })} />}
    </>
  );
}
