import { useEffect, useState } from 'react';
import { useStrings } from '../../web/screens/useStrings.js';
import { CENTERING_TICK_MS, inCentreZone, isCentered, nextHold } from './centering.js';
import type { SampleStore } from './sampleStore.js';
import { CentreMark } from './CentreMark.js';

/**
 * SPEC §2 centering screen: the mark at the centre of the stimulus (the stage canvas's centre) and 'Please set your mouse onto the mark ...';
 * done after 2 s in the zone (50 ms ticks). Before a repetition the question 'Ready for a repetition?' comes first.
 * The pointer is read from the sample store (the page's pointer listener), not from React events.
 */
export function CenteringGate(props: { samples: SampleStore; centre: { x: number; y: number }; repetition: boolean; onCentered(): void }) {
  const { samples, centre, repetition, onCentered } = props;
  const t = useStrings();
  const [held, setHeld] = useState(0);
  const done = isCentered(held);

  useEffect(() => {
    if (done) return;
    const timer = setInterval(() => {
      const latest = samples.getState().latest;
      const pointer = latest && { x: latest.clientX, y: latest.clientY };
      setHeld((h) => nextHold(h, inCentreZone(pointer, centre)));
    }, CENTERING_TICK_MS);
    return () => clearInterval(timer);
  }, [samples, done, centre.x, centre.y]);

  useEffect(() => {
    if (done) onCentered();
  }, [done, onCentered]);

  return (
    <div className="bubble-centering" id="bubble-centering" data-held={held}>
      <div className="bubble-prompt">
        {repetition && <p id="bubble-repetition">{t.bubbleRepetition}</p>}
        <p>{t.bubbleCentering}</p>
      </div>
      <CentreMark centre={centre} active={held > 0} />
    </div>
  );
}
