// What the server keeps of a session-log post besides its body, computed where the body is parsed (a worker thread,
// json-worker.mjs; the migration of older rows): the last state the session reached, and its states reduced to
// what the visual-test verdict reads. Statistics and screening then never parse a log body again. Plain JavaScript:
// the worker cannot load TypeScript.

/** One letter per state: V visual tests, I instructions, F failed eligibility, O anything else. */
function stateClass(entry) {
  if (entry.state === 'Eligibility' && entry.status === 'visual') return 'V';
  if (entry.state === 'Instruction') return 'I';
  if (entry.state === 'FailEligibility') return 'F';
  return 'O';
}

/**
 * The post's states as classes with repeats collapsed ("OVVVI" -> "OVI"): the visual-test verdict depends only on
 * what follows each run of visual-test states, which the collapse keeps. And the last state, {state, status}.
 */
export function summariseLogStates(states) {
  let classes = '';
  for (const entry of states ?? []) {
    const c = stateClass(entry);
    if (classes.at(-1) !== c) classes += c;
  }
  const last = states?.at(-1);
  return { classes, last: last ? { state: last.state, status: last.status } : null };
}

/** The classes back as states for the verdict (quality/rules.ts visualTestsOutcome). */
export function statesOfClasses(classes) {
  const state = { V: { state: 'Eligibility', status: 'visual' }, I: { state: 'Instruction', status: '' }, F: { state: 'FailEligibility', status: '' }, O: { state: 'Other', status: '' } };
  return [...classes].map((c) => state[c] ?? state.O);
}
