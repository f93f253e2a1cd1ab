export interface LogStateSummary {
  /** The post's states as one letter each (V visual tests, I instructions, F failed eligibility, O other), repeats collapsed. */
  classes: string;
  /** The last state of the post. */
  last: { state: string; status: string } | null;
}
export function summariseLogStates(states: ReadonlyArray<{ state: string; status: string }> | undefined): LogStateSummary;
export function statesOfClasses(classes: string): Array<{ state: string; status: string }>;
