import { useEffect } from 'react';
import { loadJob } from '../flow/session.js';
import type { GlimpseStore } from '../flow/store.js';
import { preloadJourneyScreens } from './PhaseView.js';

/**
 * What a participant page does once mounted (the generic test page, the piiface and bubble pages): fetch the
 * journey's first screens ahead, log the interaction, send the session logs once (or by beacon when the page closes
 * early), and ask for the job. `runnable` false (a protocol without a module) goes straight
 * to the incompatible-configuration screen without asking for the job.
 */
export function useJourneyStart(store: GlimpseStore, runnable = true): void {
  useEffect(() => {
    preloadJourneyScreens();
    const stopLogger = store.logger.start(window);
    const detachSender = store.logsSender.attach(window);
    if (runnable) void loadJob(store);
    else store.getState().dispatch({ type: 'CONFIG_INCOMPATIBLE' });
    return () => {
      detachSender();
      stopLogger();
    };
  }, [store, runnable]);
}
