import { useCallback, useEffect, useMemo } from 'react';
import { useGlimpse, useGlimpseStore } from '../flow/StoreContext.js';
import type { AnyProtocolModule } from '../protocols/types.js';
import { useStrings } from '../screens/useStrings.js';
import type { StageController } from '../stage/types.js';
import { QUESTION_BAND_PX, questionAlongTest } from './layout.js';
import { useTrialRunner } from './useTrialRunner.js';
import { VoteModal } from './VoteModal.js';

/**
 * The DOM around the stage during the Test phase: the question band, the waiting messages, the video fallback
 * text and the vote dialog holding the protocol's response view. The stage itself is drawn by StageHost.
 */
export function TestScreen({ module, controller }: { module: AnyProtocolModule; controller: StageController | null }) {
  const t = useStrings();
  const job = useGlimpse((s) => s.job)!;
  if (!module.categories.includes(job.category_id)) {
    return (
      <main className="screen centered" id="category-error">
        <h1>{t.categoryError}</h1>
      </main>
    );
  }
  return <TrialView module={module} controller={controller} />;
}

function TrialView({ module, controller }: { module: AnyProtocolModule; controller: StageController | null }) {
  const store = useGlimpseStore();
  const t = useStrings();
  const job = useGlimpse((s) => s.job)!;
  const playlist = useGlimpse((s) => s.playlist);
  const training = useGlimpse((s) => s.flow.training === 'running');
  const dispatch = useGlimpse((s) => s.dispatch);
  const params = useMemo(() => module.params(job), [module, job]);
  const stimuli = useMemo(() => (training ? playlist?.stimulis_training : playlist?.stimulis) ?? [], [training, playlist]);
  const onDone = useCallback(() => dispatch({ type: 'TEST_DONE' }), [dispatch]);
  const run = useTrialRunner({ store, module, params, stimuli, training, controller, onDone });

  useEffect(() => {
    if (stimuli.length === 0) onDone();
  }, [stimuli.length, onDone]);

  const View = module.ResponseView;
  const waiting = !controller || run.status === 'preparing';
  return (
    <>
      {/* Where the trial stands, for tests and logs (not shown). */}
      <div id="trial" hidden data-status={run.status} data-index={run.index} data-replays={run.nbReplay} />
      {questionAlongTest(job.category_id) && (
        <div className="question-band" id="question" style={{ height: QUESTION_BAND_PX, background: job.backgroundColor }}>
          {job.question}
        </div>
      )}
      {waiting && (
        <p className="test-message" id="test-waiting">
          {!controller || run.index === 0 ? t.loadingStimuli : t.waitingNextStimuli}
        </p>
      )}
      {run.mediaError === 'video' && (
        <p className="test-message" id="video-unsupported">
          {t.videoUnsupported}
        </p>
      )}
      {run.stimulus && (run.status === 'responding' || run.status === 'saving') && (
        <VoteModal index={run.index} total={stimuli.length}>
          <View
            key={`${run.index}-${run.playCount}`}
            params={params}
            stimulus={run.stimulus}
            index={run.index}
            total={stimuli.length}
            training={training}
            strings={t}
            busy={run.status === 'saving'}
            onAnswer={run.answer}
            onReplay={run.replay}
          />
        </VoteModal>
      )}
    </>
  );
}
