import { useCallback, useEffect, useMemo } from 'react';
import { interruptionPolicyOf } from '../../contract/job-options.js';
import { refreshRuleFailure } from '../screens/eligibility/rules.js';
import type { PlaylistStimulus } from '../../contract/playlist.js';
import { DIALOG_GAP_PX } from '../../protocols/common/objects.js';
import type { StagedModule } from '../../protocols/types.js';
import { inTraining } from '../flow/phases.js';
import { useGlimpse, useGlimpseStore } from '../flow/StoreContext.js';
import { useStrings } from '../screens/useStrings.js';
import type { StageController } from '../stage/types.js';
import { QUESTION_BAND_PX, questionAlongTest } from './layout.js';
import { KeptAnswerNotice, SaveTrouble } from './SaveTrouble.js';
import { useStagedTrials } from './useStagedTrials.js';
import { WindowTooSmall } from './WindowTooSmall.js';
import { VoteModal } from './VoteModal.js';
import { answerSlot } from './voteModalPosition.js';

/**
 * The Test phase of a staged protocol: the question band, the waiting messages, the video fallback text and the
 * vote dialog holding the protocol's response view, over the page's stage.
 */
export function StagedPhase({ module, stage }: { module: StagedModule; stage: StageController | null }) {
  const t = useStrings();
  const job = useGlimpse((s) => s.job)!;
  if (!module.categories.includes(job.category_id)) {
    return (
      <main className="screen centered" id="category-error">
        <h1>{t.categoryError}</h1>
      </main>
    );
  }
  return <TrialView module={module} stage={stage} />;
}

function TrialView({ module, stage }: { module: StagedModule; stage: StageController | null }) {
  const store = useGlimpseStore();
  const t = useStrings();
  const job = useGlimpse((s) => s.job)!;
  const playlist = useGlimpse((s) => s.playlist);
  const training = useGlimpse((s) => inTraining(s.flow));
  const dispatch = useGlimpse((s) => s.dispatch);
  const params = useMemo(() => module.params(job), [module, job]);
  const stimuli = useMemo(() => ((training ? playlist?.stimulis_training : playlist?.stimulis) ?? []) as PlaylistStimulus[], [training, playlist]);
  const onDone = useCallback(() => dispatch({ type: 'TEST_DONE' }), [dispatch]);
  const interruptions = useMemo(() => interruptionPolicyOf(job), [job]);
  const run = useStagedTrials({ store, module, params, stimuli, training, stage, scaling: job.scaling, interruptions, minRefreshHz: job.minRefreshHz, onDone });

  useEffect(() => {
    if (stimuli.length === 0) onDone();
  }, [stimuli.length, onDone]);

  const View = module.ResponseView;
  const waiting = !stage || run.status === 'preparing';
  const along = questionAlongTest(job.category_id);
  // Objects under inspection stay on screen, turnable, while the dialog is up: it goes in the band left free for it.
  const slot = run.heldRects && stage ? answerSlot(stage.clientRect(), run.heldRects, DIALOG_GAP_PX) : null;
  return (
    <>
      {/* Where the trial stands, for tests and logs (not shown). */}
      <div id="trial" hidden data-status={run.status} data-index={run.index} data-replays={run.nbReplay} />
      {along && (
        <div className="question-band" id="question" style={{ height: QUESTION_BAND_PX, background: job.backgroundColor }}>
          {job.question}
        </div>
      )}
      {waiting && (
        <p className="test-message" id="test-waiting">
          {!stage || run.index === 0 ? t.loadingStimuli : t.waitingNextStimuli}
        </p>
      )}
      {run.status === 'window-small' && run.windowNeed && <WindowTooSmall need={run.windowNeed} />}
      {run.status === 'refresh-low' && stage && (
        <p className="test-message" id="refresh-low">
          {refreshRuleFailure(job.minRefreshHz, stage.refreshMs, t)}
        </p>
      )}
      {run.status === 'interrupted' && (
        <p className="test-message" id="stage-interrupted">
          {t.stageInterrupted}
        </p>
      )}
      {run.mediaError === 'video' && (
        <p className="test-message" id="video-unsupported">
          {t.videoUnsupported}
        </p>
      )}
      <KeptAnswerNotice
        labelOf={(stimulusId, value) => {
          const stimulus = stimuli.find((s) => s.stimuliId === stimulusId);
          return stimulus ? module.answerLabel(value, stimulus, params, t) : null;
        }}
      />
      {run.stimulus && (run.status === 'responding' || run.status === 'saving') && (
        <VoteModal index={run.index} total={stimuli.length} question={along ? null : job.question} slot={slot}>
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
          <SaveTrouble />
        </VoteModal>
      )}
    </>
  );
}
