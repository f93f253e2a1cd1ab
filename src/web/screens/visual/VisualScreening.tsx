import { useState } from 'react';
import type { Strings } from '../../i18n/index.js';
import { AcuityChart } from './AcuityChart.js';
import { ColorPlates } from './ColorPlates.js';
import './visual.css';

export type VisualScreeningKind = 'acuity' | 'color';

export interface VisualScreeningProps {
  /** Tests to run, in this order (SPEC §4: acuity then colour, or the reverse). */
  order: readonly VisualScreeningKind[];
  strings: Strings;
  /** Called by the Continue button once every test passed. */
  onPass(): void;
  /** Called by the 'Exit the test' button of a failure screen. */
  onExit(): void;
  /** Forwarded to AcuityChart (undefined: read the server's meta tag). */
  acuityBypassHash?: string | null;
}

/** Runs the visual tests in order; the first failure ends the sequence (both must pass, SPEC §5). */
export function VisualScreening({ order, strings, onPass, onExit, acuityBypassHash }: VisualScreeningProps) {
  const [step, setStep] = useState(0);
  const [failed, setFailed] = useState<VisualScreeningKind | null>(null);
  const current = order[step];
  const onResult = (kind: VisualScreeningKind) => (passed: boolean) => {
    if (passed) setStep((s) => s + 1);
    else setFailed(kind);
  };

  if (failed) {
    const lines =
      failed === 'acuity'
        ? [strings.visualAcuityFailed, strings.visualAcuityFailedCannotContinue, strings.visualAcuityFailedThanks]
        : [strings.visualColorFailed];
    return (
      <div className="visual-screen visual-outcome" role="alert">
        {lines.map((line) => (
          <p key={line}>{line}</p>
        ))}
        <button type="button" onClick={onExit}>
          {strings.visualExit}
        </button>
      </div>
    );
  }
  if (current === undefined) {
    return (
      <div className="visual-screen visual-outcome">
        <p>{strings.visualSucceeded}</p>
        <button type="button" onClick={onPass}>
          {strings.visualContinue}
        </button>
      </div>
    );
  }
  return (
    <div className="visual-screen">
      {current === 'acuity' ? (
        <AcuityChart key={step} strings={strings} bypassHash={acuityBypassHash} onResult={onResult('acuity')} />
      ) : (
        <ColorPlates key={step} strings={strings} onResult={onResult('color')} />
      )}
    </div>
  );
}
