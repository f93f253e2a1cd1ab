// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { pairComparison } from '../../protocols/pair/index.js';
import { keepPhaseHistory } from './phaseHistory.js';
import { parseQuery } from './query.js';
import { createGlimpseStore } from './store.js';

const popped = () => new Promise<void>((resolve) => window.addEventListener('popstate', () => resolve(), { once: true }));

describe('phase history (issue 35: Back stays inside the study)', () => {
  it('adds one entry per phase reached, at the same address; Back and Forward land on them and the study stays where it is', async () => {
    const store = createGlimpseStore({ jobId: 'j', protocol: pairComparison, query: parseQuery('?platform=prolific') });
    const returns: boolean[] = [];
    const address = window.location.href;
    const start = window.history.length;
    const stop = keepPhaseHistory(store, window, (returned) => returns.push(returned));
    try {
      const { dispatch, set } = store.getState();
      // The landing shares the eligibility screen's entry: the page's own, no entry added without a click.
      dispatch({ type: 'JOB_LOADED', config: { visualTests: false, consentForm: false } });
      set({ bcheckId: 7 });
      expect(window.history.length).toBe(start);
      dispatch({ type: 'ELIGIBILITY_PASSED' });
      dispatch({ type: 'PLAYLIST_LOADED', hasTraining: false, resumeAt: 0 });
      dispatch({ type: 'WELCOME_DONE' });
      expect(window.history.length).toBe(start + 2);
      expect(window.history.state).toMatchObject({ glimpsePhase: 'Instruction:instructions' });
      expect(returns).toEqual([false, false]);

      const back = popped();
      window.history.back();
      await back;
      expect(window.location.href).toBe(address);
      expect(window.history.state).toMatchObject({ glimpsePhase: 'Instruction:welcome' });
      expect(store.getState().flow).toMatchObject({ phase: 'Instruction', instructionStep: 'instructions' });
      const forward = popped();
      window.history.forward();
      await forward;
      expect(returns).toEqual([false, false, true, true]);

      // The next phase is a new entry again, and the notice goes.
      dispatch({ type: 'INSTRUCTIONS_DONE' });
      expect(window.history.state).toMatchObject({ glimpsePhase: 'Loading:test' });
      expect(returns.at(-1)).toBe(false);
    } finally {
      stop();
    }
  });
});
