import { useEffect } from 'react';
import { useGlimpse } from '../flow/StoreContext.js';
import { useStrings } from '../screens/useStrings.js';

/**
 * A post that still fails after its retries (SPEC §4: the stimulus does not advance): a short, calm line instead
 * of a Submit that comes back without a word.
 */
export function SaveTrouble() {
  const t = useStrings();
  const trouble = useGlimpse((s) => s.saveTrouble);
  if (!trouble) return null;
  return (
    <p className="save-trouble" id="save-trouble" role="status">
      {t.savingAnswerTrouble}
    </p>
  );
}

/** How long the page says which answer counts, after the server kept an earlier one. */
const KEPT_NOTICE_MS = 5000;

/**
 * The server already had this presentation's answer (a lost acknowledgement, another tab) and kept it: the page
 * moves on, saying which answer counts. `labelOf` names a stored value in the protocol's dialog words.
 */
export function KeptAnswerNotice({ labelOf = () => null }: { labelOf?(stimulusId: number, value: number): string | null }) {
  const t = useStrings();
  const kept = useGlimpse((s) => s.keptAnswer);
  const setSaving = useGlimpse((s) => s.setSaving);
  useEffect(() => {
    if (!kept) return;
    const timer = setTimeout(() => setSaving({ keptAnswer: null }), KEPT_NOTICE_MS);
    return () => clearTimeout(timer);
  }, [kept, setSaving]);
  if (!kept) return null;
  const label = labelOf(kept.stimulusId, kept.value);
  return (
    <p className="kept-answer" id="kept-answer" role="status">
      {label === null ? t.answerAlreadySavedPlain : t.answerAlreadySaved.replace('{answer}', label)}
    </p>
  );
}
