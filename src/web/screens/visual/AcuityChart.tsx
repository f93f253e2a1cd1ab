import { useMemo, useState } from 'react';
import type { Strings } from '../../i18n/index.js';
import { ACUITY_CHART_FILE, isAcuityAnswerAccepted, readAcuityBypassHash } from './visualChecks.js';
import { publicAsset } from './publicAsset.js';
import { VisualAnswerForm } from './VisualAnswerForm.js';

export interface AcuityChartProps {
  strings: Strings;
  /** SHA-256 hex of the developer bypass; undefined reads the server-injected meta tag, null disables it. */
  bypassHash?: string | null;
  onResult(passed: boolean): void;
}

/** Monoyer-style chart: one answer, checked once (SPEC §5); the parent shows the failure screen. */
export function AcuityChart({ strings, bypassHash, onResult }: AcuityChartProps) {
  const [answer, setAnswer] = useState('');
  const [checking, setChecking] = useState(false);
  const hash = useMemo(() => (bypassHash === undefined ? readAcuityBypassHash() : bypassHash), [bypassHash]);

  const submit = async () => {
    setChecking(true);
    onResult(await isAcuityAnswerAccepted(answer, hash));
  };

  return (
    <VisualAnswerForm
      title={strings.visualAcuityTitle}
      instruction={strings.visualAcuityInstruction}
      answerLabel={strings.visualAcuityAnswerLabel}
      input={{ name: 'acuity-answer', autoCorrect: 'off', spellCheck: false }}
      answer={answer}
      onAnswerChange={setAnswer}
      submitLabel={strings.submit}
      checking={checking}
      onSubmit={() => void submit()}
    >
      <img className="visual-chart" src={publicAsset(ACUITY_CHART_FILE)} alt={strings.visualAcuityChartAlt} width={280} draggable={false} />
    </VisualAnswerForm>
  );
}
