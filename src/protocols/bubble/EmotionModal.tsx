import { useId, useState } from 'react';
import { fill } from '../../web/i18n/format.js';
import { useStrings } from '../../web/screens/useStrings.js';
import { dialogTop, EMOTION_KEYS, emotionModalBox } from './modalLayout.js';

/**
 * SPEC §2 emotion modal: the question (French on nantes), four radios, the progress line 'type index/length' and
 * 'Submit'. Submitting with nothing chosen turns the button red and sends nothing (SPEC §5). Answers the index.
 * Mounted afresh for each play (keyed by the caller), so a choice never carries over.
 */
export function EmotionModal(props: { video: boolean; index: number; total: number; questionAlongTest: boolean; busy: boolean; onAnswer(index: number): void }) {
  const t = useStrings();
  const name = useId();
  const [choice, setChoice] = useState<number | null>(null);
  const [missing, setMissing] = useState(false);
  const submit = () => {
    if (choice === null) {
      console.log('Please select an answer first');
      setMissing(true);
      return;
    }
    props.onAnswer(choice);
  };
  const danger = missing && choice === null;
  return (
    <div className="floating-dialog bubble-dialog bubble-emotion" role="dialog" id="bubble-emotion" style={{ top: dialogTop(window.innerHeight), ...emotionModalBox(props.questionAlongTest) }}>
      <p className="vote-progress" id="bubble-emotion-progress">
        {fill(t.bubbleEmotionProgress, { type: props.video ? t.bubbleTypeVideo : t.bubbleTypeImage, index: props.index + 1, total: props.total })}
      </p>
      <fieldset disabled={props.busy}>
        <legend>{t.bubbleEmotionQuestion}</legend>
        {EMOTION_KEYS.map((key, index) => (
          <label key={key}>
            <input type="radio" name={name} value={index} checked={choice === index} onChange={() => setChoice(index)} /> {t[key]}
          </label>
        ))}
      </fieldset>
      <button id="bubble-emotion-submit" type="button" className={danger ? 'danger' : undefined} disabled={props.busy} onClick={submit}>
        {t.bubbleSubmit}
      </button>
    </div>
  );
}
