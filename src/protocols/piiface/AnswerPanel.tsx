import { useId, useState, type ReactNode } from 'react';
import { fill } from '../../web/i18n/format.js';
import type { Strings } from '../../web/i18n/index.js';
import { CONFIDENCE_KEYS, EMOTION_KEYS, isComplete, type PiifaceAnswer } from './answers.js';
import { PANEL_WIDTH_PX } from './layout.js';

export interface AnswerPanelProps {
  strings: Strings;
  question: string;
  /** 'Image 2 / 10' or 'Training 1 / 3'. */
  progress: string;
  training: boolean;
  /** Training: the expected emotion index (from the stimulus type), null when unknown. */
  expected: number | null;
  /** The face is on screen: answers may be given. */
  ready: boolean;
  /** The answer is being saved. */
  busy: boolean;
  imageFailed: boolean;
  /** Fullscreen is required and not active: no way forward until it is (SPEC §2 screen 4). */
  fullscreenMissing: boolean;
  /** Training: any time. Test: only with both answers. */
  onNext(answer: PiifaceAnswer): void;
  /** Shown under the button (the page's saving notice). */
  children?: ReactNode;
}

/**
 * The piiface answer panel (SPEC §2): the question, the emotion and confidence radios and 'Next image'.
 * A test image needs both answers: otherwise the button turns red ('danger', and the missing group is outlined)
 * and nothing is sent (SPEC §4). Training needs none and shows whether the chosen emotion was the expected one.
 * Mounted afresh for each image (keyed by the caller), so answers never carry over.
 */
export function AnswerPanel(props: AnswerPanelProps) {
  const { strings: t, training, expected } = props;
  const [answer, setAnswer] = useState<PiifaceAnswer>({ emotion: null, confidence: null });
  const [attempted, setAttempted] = useState(false);
  const name = useId();
  const complete = isComplete(answer);
  const danger = attempted && !training && !complete;

  const next = () => {
    if (!training && !complete) {
      // SPEC §8: silent for the participant apart from the red button; the message is only logged.
      console.log('Please select an answer first');
      setAttempted(true);
      return;
    }
    props.onNext(answer);
  };

  const group = (kind: 'emotion' | 'confidence', keys: readonly (keyof Strings)[], legend: string) => {
    const missing = danger && answer[kind] === null;
    return (
      <fieldset id={`piiface-${kind}`} className={missing ? 'missing' : undefined} aria-invalid={missing || undefined} disabled={!props.ready || props.busy}>
        <legend>{legend}</legend>
        {keys.map((key, index) => (
          <label key={key}>
            <input type="radio" name={`${name}-${kind}`} value={index} checked={answer[kind] === index} onChange={() => setAnswer((a) => ({ ...a, [kind]: index }))} />{' '}
            {t[key]}
          </label>
        ))}
      </fieldset>
    );
  };

  return (
    <aside className="piiface-panel" id="piiface-panel" style={{ width: PANEL_WIDTH_PX }}>
      <p className="piiface-progress" id="piiface-position">
        {props.progress}
      </p>
      <h1 id="piiface-question">{props.question}</h1>
      {training && <p className="piiface-note">{t.piifaceTrainingNote}</p>}
      {props.imageFailed && <p className="error-text">{t.piifaceImageFailed}</p>}
      {group('emotion', EMOTION_KEYS, t.piifaceEmotionLegend)}
      {training && expected !== null && answer.emotion !== null && (
        <p role="status" id="piiface-feedback" className={answer.emotion === expected ? 'check-pass' : 'check-fail'}>
          {fill(answer.emotion === expected ? t.piifaceTrainingRight : t.piifaceTrainingWrong, { emotion: t[EMOTION_KEYS[expected]!] })}
        </p>
      )}
      {group('confidence', CONFIDENCE_KEYS, t.piifaceConfidenceLegend)}
      {props.fullscreenMissing ? (
        <p className="error-text">{t.fullscreenRequired}</p>
      ) : (
        <button
          id="piiface-next"
          type="button"
          className={danger ? 'danger' : undefined}
          data-variant={danger ? 'danger' : 'primary'}
          disabled={!props.ready || props.busy}
          onClick={next}
        >
          {t.piifaceNextImage}
        </button>
      )}
      {props.children}
    </aside>
  );
}
