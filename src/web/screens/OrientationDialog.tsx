import { useEffect, useState } from 'react';
import { useGlimpse } from '../flow/StoreContext.js';
import { useStrings } from './useStrings.js';

const isPortrait = () => window.innerHeight >= window.innerWidth;

/** SPEC §2 screen 5: on a phone experiment asking for vl=1 / hz=1, cover the page until the phone is turned. No close action. */
export function OrientationDialog() {
  const t = useStrings();
  const query = useGlimpse((s) => s.query);
  const [portrait, setPortrait] = useState(isPortrait);
  useEffect(() => {
    const update = () => setPortrait(isPortrait());
    window.addEventListener('resize', update);
    window.addEventListener('orientationchange', update);
    return () => {
      window.removeEventListener('resize', update);
      window.removeEventListener('orientationchange', update);
    };
  }, []);
  if (!query.phone) return null;
  const wrong = (query.vertical && !portrait) || (query.horizontal && portrait);
  if (!wrong) return null;
  return (
    <div className="dialog-backdrop">
      <div className="dialog" role="dialog" aria-modal="true" id="orientation-dialog">
        <p>{query.vertical ? t.orientationVertical : t.orientationHorizontal}</p>
      </div>
    </div>
  );
}
