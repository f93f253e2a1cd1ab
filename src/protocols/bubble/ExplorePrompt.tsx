import { useStrings } from '../../web/screens/useStrings.js';
import { dialogTop } from './modalLayout.js';

/** SPEC §2 exploration prompt: 'Did you need to explore more the sequence?' Yes (replay) / No (next stimulus). */
export function ExplorePrompt({ onYes, onNo }: { onYes(): void; onNo(): void }) {
  const t = useStrings();
  return (
    <div className="floating-dialog bubble-dialog" role="dialog" id="bubble-explore" style={{ top: dialogTop(window.innerHeight) }}>
      <p>{t.bubbleExplore}</p>
      <div className="vote-buttons">
        <button id="bubble-explore-yes" type="button" onClick={onYes}>
          {t.bubbleYes}
        </button>
        <button id="bubble-explore-no" type="button" className="secondary" onClick={onNo}>
          {t.bubbleNo}
        </button>
      </div>
    </div>
  );
}
