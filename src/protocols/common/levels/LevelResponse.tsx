import { useState } from 'react';
import type { Strings } from '../../../web/i18n/en.js';
import { fill } from '../../../web/i18n/format.js';
import { submitAnswer } from '../submitAnswer.js';
import type { ResponseViewProps } from '../../types.js';
import { AUTO_SUBMIT_MS, levelGroups, levelOf, type Level, type LevelScale } from './levels.js';
import { useAutoSubmit } from './useAutoSubmit.js';
import './levels.css';

/** Parameters of every category-scale protocol: its scale. */
export interface ScaleParams {
  scale: LevelScale;
}

/**
 * The vote dialog of a category scale (SPEC §2 "Single-stimulus rating", "Acceptability"): pick a level, then
 * Submit or Modify; the answer is the level's value. A picked level is submitted by itself after 5000 ms while the
 * dialog is open and no post is in flight (SPEC §4, §9). In training the dialog shows the example's reference score
 * (stimulus.value) and 'Next scoring example'. The page remounts the view for every stimulus, clearing the choice.
 */
export function LevelResponse({ params, stimulus, strings, busy, training, onAnswer }: ResponseViewProps<ScaleParams, number>) {
  const { scale } = params;
  const reference = stimulus.value;
  const [selected, setSelected] = useState<Level | null>(null);
  useAutoSubmit(!training && selected !== null && !busy, AUTO_SUBMIT_MS, () => submitAnswer(selected?.value ?? null, onAnswer));

  if (training) return <TrainingExample scale={scale} strings={strings} busy={busy} reference={reference} onNext={() => onAnswer(reference ?? NaN)} />;
  if (selected === null) {
    return <LevelButtons scale={scale} strings={strings} busy={busy} onPick={setSelected} />;
  }
  return (
    <div className="vote-confirm">
      <p className={`vote-choice${scale.colored && selected.color ? ` level-text-${selected.color}` : ''}`}>{strings[selected.label]}</p>
      <div className="vote-buttons">
        <button id="vote-submit" type="button" disabled={busy} onClick={() => submitAnswer(selected.value, onAnswer)}>
          {strings.submit}
        </button>
        <button id="vote-modify" type="button" className="secondary" disabled={busy} onClick={() => setSelected(null)}>
          {strings.modify}
        </button>
      </div>
    </div>
  );
}

function LevelButtons({ scale, strings, busy, onPick }: { scale: LevelScale; strings: Strings; busy: boolean; onPick(level: Level): void }) {
  return (
    <div className="level-scale">
      {levelGroups(scale).map((group, index) => (
        <div className="level-group" key={index}>
          {group.map((level) => (
            <button
              key={level.value}
              id={`level-${level.value}`}
              type="button"
              data-value={level.value}
              className={levelClass(scale, level)}
              disabled={busy}
              onClick={() => onPick(level)}
            >
              {strings[level.label]}
            </button>
          ))}
        </div>
      ))}
    </div>
  );
}

/** SPEC §2 "In training: 'Next scoring example'": the scale with the example's reference level marked. */
function TrainingExample(props: { scale: LevelScale; strings: Strings; busy: boolean; reference?: number; onNext(): void }) {
  const { scale, strings, busy, reference, onNext } = props;
  const referenceLevel = levelOf(scale, reference);
  return (
    <div className="level-training">
      {reference !== undefined && (
        <p className="vote-choice" id="training-reference">
          {fill(strings.trainingReferenceScore, { label: referenceLevel ? strings[referenceLevel.label] : String(reference) })}
        </p>
      )}
      <div className="level-scale" aria-hidden="true">
        {levelGroups(scale).map((group, index) => (
          <div className="level-group" key={index}>
            {group.map((level) => (
              <span key={level.value} className={`${levelClass(scale, level)}${level === referenceLevel ? ' level-reference' : ''}`}>
                {strings[level.label]}
              </span>
            ))}
          </div>
        ))}
      </div>
      <div className="vote-buttons">
        <button id="vote-next-example" type="button" disabled={busy} onClick={onNext}>
          {strings.nextScoringExample}
        </button>
      </div>
    </div>
  );
}

function levelClass(scale: LevelScale, level: Level): string {
  return scale.colored && level.color ? `level level-${level.color}` : 'level';
}
