import type { Platform } from '../../contract/platforms.js';
import type { FailReason } from '../flow/phases.js';
import { useGlimpse } from '../flow/StoreContext.js';
import type { Strings } from '../i18n/en.js';
import { useStrings } from './useStrings.js';

const TEXT: Record<FailReason, { mturk: keyof Strings; other: keyof Strings }> = {
  server: { mturk: 'failServerMturk', other: 'failServerOther' },
  config: { mturk: 'failConfigMturk', other: 'failConfigOther' },
  alreadyCompleted: { mturk: 'failAlreadyMturk', other: 'failAlreadyOther' },
  studyFull: { mturk: 'failFullMturk', other: 'failFullOther' },
  studyPaused: { mturk: 'failPausedMturk', other: 'failPausedOther' },
  studyClosed: { mturk: 'failClosedMturk', other: 'failClosedOther' },
  studyNotOpenYet: { mturk: 'failNotOpenYetMturk', other: 'failNotOpenYetOther' },
};

/** Lab wording comes from fr.ts (nantes); mturk and the other platforms have their own English wording. */
export function failureText(t: Strings, reason: FailReason, platform: Platform): string {
  return t[TEXT[reason][platform === 'mturk' ? 'mturk' : 'other']];
}

/** SPEC §8 failure screens: server connection error, incompatible configuration, already completed; and study full. */
export function FailureScreen() {
  const t = useStrings();
  const reason = useGlimpse((s) => s.flow.failReason ?? 'server');
  const platform = useGlimpse((s) => s.query.platform);
  return (
    <main className="screen centered" id={`fail-${reason}`}>
      <h1>{failureText(t, reason, platform)}</h1>
    </main>
  );
}
