/**
 * SPEC §4 step 5, shared by every vote dialog: with no answer nothing is sent; the reminder is only logged.
 * Returns whether the answer was handed to `send`.
 */
export function submitAnswer<A>(answer: A | null, send: (answer: A) => void): boolean {
  if (answer === null) {
    console.log('Please select an answer first');
    return false;
  }
  send(answer);
  return true;
}
