import { useEffect } from 'react';
import type { RawPointerSample, SampleStore } from './sampleStore.js';
import type { StimulusMapping } from './useBubbleTrials.js';

/**
 * Every pointer sample of the page goes to the sample store: each pointermove's coalesced samples (the events the
 * browser merged into this one, e.g. 1000 Hz mouse at 60 fps), else the event itself. Passive window listener:
 * no React render per event.
 */
export function usePointerSamples(samples: SampleStore, mapping: StimulusMapping): void {
  useEffect(() => {
    const onMove = (event: PointerEvent) => {
      if (!event.isPrimary) return;
      const coalesced = typeof event.getCoalescedEvents === 'function' ? event.getCoalescedEvents() : [];
      const list: RawPointerSample[] = (coalesced.length > 0 ? coalesced : [event]).map((e) => ({ clientX: e.clientX, clientY: e.clientY, timeStamp: e.timeStamp }));
      samples.getState().append(list, (x, y) => mapping.current(x, y));
    };
    window.addEventListener('pointermove', onMove, { passive: true });
    return () => window.removeEventListener('pointermove', onMove);
  }, [samples, mapping]);
}
