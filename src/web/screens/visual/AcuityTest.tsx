import { useMemo, useState, type FormEvent } from 'react';
import type { Strings } from '../../i18n/index.js';
import { ACUITY_CHART_FILE, isAcuityAnswerAccepted, readAcuityBypassHash } from './visualChecks.js';
import { publicAsset } from './publicAsset.js';

export interface AcuityTestProps {
  strings: Strings;
  /** SHA-256 hex of the developer bypass; undefined reads the server-injected meta tag, null disables it. */
  bypassHash?: string | null;
  onResult(passed: boolean): void;
}

/** Monoyer-style chart: one answer, checked once (SPEC §5); the parent shows the failure screen. */
export function AcuityTest({ strings, bypassHash, onResult }: AcuityTestProps) {
  const [answer, setAnswer] = useState('');
  const [checking, setChecking] = useState(false);
  const hash = useMemo(() => (bypassHash === undefined ? readAcuityBypassHash() : bypassHash), [bypassHash]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (checking || answer.trim() === '') return;
    setChecking(true);
    onResult(await isAcuityAnswerAccepted(answer, hash));
  };

  return (
    <form className="visual-test" onSubmit={submit}>
      <h1>{strings.visualAcuityTitle}</h1>
      <p className="visual-instruction">{strings.visualAcuityInstruction}</p>
      <img
        className="visual-chart"
        src={publicAsset(ACUITY_CHART_FILE)}
        alt={strings.visualAcuityChartAlt}
        width={280}
        draggable={false}
      />
      <label className="visual-answer">
        {strings.visualAcuityAnswerLabel}
        <input
          name="acuity-answer"
          value={answer}
          onChange={(e) => setAnswer(e.target.value)}
          autoComplete="off"
          autoCorrect="off"
          spellCheck={false}
          autoFocus
        />
      </label>
      <button type="submit" disabled={checking || answer.trim() === ''}>
        {strings.submit}
      </button>
    </form>
  );
}
