import { statusOf, type FlowState } from './phases.js';
import type { GlimpseStore } from './store.js';

/** The key of a phase's history entry (same address): the phase and its logged status (SPEC §3 state entries). */
export const phaseKey = (flow: FlowState): string => (flow.phase === 'Landing' ? 'Eligibility:checks' : `${flow.phase}:${statusOf(flow)}`);

const STATE_FIELD = 'glimpsePhase';

/**
 * Back stays inside the study (issue 35): each phase the page reaches gets a history entry of its own, at the same
 * address, so the browser's Back and Forward move between them and the page is not left (it was, at once, by
 * Back). The study itself never goes back: an answer stored is never shown or sent again, and the screen stays where
 * the study is. `onReturn(true)` is called when Back or Forward lands on one of these entries (the page says the study
 * goes on from here), `onReturn(false)` when the next phase is reached. Back from the first entry leaves the page as
 * before; a reload or Forward from outside resumes the session (docs/data-safety.md "Participant continuity").
 * Returns the function that stops it.
 */
export function keepPhaseHistory(store: GlimpseStore, win: Window, onReturn: (returned: boolean) => void): () => void {
  const history = win.history;
  let current = phaseKey(store.getState().flow);
  // Spread: the router keeps its own fields in the entry's state.
  history.replaceState({ ...history.state, [STATE_FIELD]: current }, '');
  const unsubscribe = store.subscribe((state) => {
    const next = phaseKey(state.flow);
    if (next === current) return;
    current = next;
    history.pushState({ ...history.state, [STATE_FIELD]: next }, '');
    onReturn(false);
  });
  const onPop = (event: PopStateEvent) => {
    if (event.state && typeof event.state === 'object' && STATE_FIELD in event.state) onReturn(true);
  };
  win.addEventListener('popstate', onPop);
  return () => {
    unsubscribe();
    win.removeEventListener('popstate', onPop);
  };
}
