import { useState } from 'react';
import { preload } from 'react-dom';
import type { Strings } from '../../i18n/index.js';
import { fill } from '../../i18n/format.js';
import { COLOR_PLATE_NUMBERS, areColorAnswersCorrect, colorPlateFile } from './visualChecks.js';
import { publicAsset } from './publicAsset.js';
import { VisualAnswerForm } from './VisualAnswerForm.js';

export interface ColorPlatesProps {
  strings: Strings;
  onResult(passed: boolean): void;
}

/**
 * Four pseudo-isochromatic plates, one at a time. Every plate is answered before the verdict, so a
 * participant does not learn which plate was misread.
 */
export function ColorPlates({ strings, onResult }: ColorPlatesProps) {
  const [answers, setAnswers] = useState<string[]>([]);
  const [answer, setAnswer] = useState('');
  const index = answers.length;
  const count = COLOR_PLATE_NUMBERS.length;

  const next = () => {
    const all = [...answers, answer];
    setAnswers(all);
    setAnswer('');
    if (all.length === count) onResult(areColorAnswersCorrect(all));
  };

  if (index >= count) return null;
  // Fetch the next plate while this one is read, so it appears at once.
  if (index + 1 < count) preload(publicAsset(colorPlateFile(index + 1)), { as: 'image' });
  return (
    <VisualAnswerForm
      title={strings.visualColorTitle}
      instruction={strings.visualColorInstruction}
      answerLabel={strings.visualColorAnswerLabel}
      input={{ name: 'plate-answer', inputMode: 'numeric' }}
      answer={answer}
      onAnswerChange={setAnswer}
      submitLabel={strings.next}
      onSubmit={next}
    >
      <p className="visual-progress">{fill(strings.visualColorProgress, { index: index + 1, count })}</p>
      <img
        key={index}
        className="visual-plate"
        src={publicAsset(colorPlateFile(index))}
        alt={fill(strings.visualColorPlateAlt, { index: index + 1, count })}
        width={300}
        height={300}
        draggable={false}
      />
    </VisualAnswerForm>
  );
}
