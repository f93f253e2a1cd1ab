import { isTerminal, statusOf, type FlowState, type Phase } from '../../web/flow/phases.js';
import type { TrialPosition } from '../../web/flow/store.js';

export type { TrialPosition };

/**
 * The piiface progress tracker (SPEC §2/§7: "runs over these states with interval 100"; what it sends is not
 * shown). Our reading: every 100 ms it samples where the participant stands (phase, status and, in training or
 * test, the image on screen) and
 *   - drives the visible progress bar (percent of the journey), and
 *   - logs one state entry {state: 'Progress', status: 'training 1/3' | 'test 2/10'} into the session logs each
 *     time a new image comes on screen, so researchers get each image's onset time (to 100 ms) with the logs.
 * Phase changes themselves are already logged by the store; the image on screen is the store's trial position.
 */

export const PROGRESS_INTERVAL_MS = 100;
export const PROGRESS_LOG_STATE = 'Progress';

export interface ProgressSnapshot {
  phase: Phase;
  status: string;
  position: TrialPosition | null;
  /** 0..100, whole number. */
  percent: number;
}

// Share of the bar: eligibility and instructions up to START, the training (when there is one) up to
// START + TRAINING_SHARE, the test up to END, the result 100.
const START = 15;
const TRAINING_SHARE = 20;
const END = 95;

function journeyPercent(flow: FlowState, position: TrialPosition | null): number {
  if (isTerminal(flow.phase)) return 100;
  const hasTraining = flow.training === 'pending' || flow.training === 'running' || flow.training === 'finished';
  const testStart = START + (hasTraining ? TRAINING_SHARE : 0);
  switch (flow.phase) {
    case 'Landing':
      return 0;
    case 'Eligibility':
      return 5;
    case 'Instruction':
      return flow.training === 'finished' ? testStart : 10;
    default: {
      // Loading or Test: the share of images already answered.
      const [from, to] = flow.training === 'running' ? [START, testStart] : [testStart, END];
      const done = position && position.training === (flow.training === 'running') && position.total > 0 ? position.index / position.total : 0;
      return Math.round(from + (to - from) * done);
    }
  }
}

export function progressSnapshot(flow: FlowState, position: TrialPosition | null): ProgressSnapshot {
  return { phase: flow.phase, status: statusOf(flow), position, percent: journeyPercent(flow, position) };
}

/** 'test 2/10' (1-based, as the participant counts). */
export function positionLabel(position: TrialPosition): string {
  return `${position.training ? 'training' : 'test'} ${position.index + 1}/${position.total}`;
}

function samePosition(a: TrialPosition | null, b: TrialPosition | null): boolean {
  return a === b || (!!a && !!b && a.training === b.training && a.index === b.index && a.total === b.total);
}

export interface TrackerOutputs {
  /** Any change of the snapshot (the progress bar). */
  onChange(snapshot: ProgressSnapshot): void;
  /** A new image on screen (the session log entry). */
  onNewPosition(label: string): void;
}

export class ProgressTracker {
  private last: ProgressSnapshot | null = null;

  constructor(
    private readonly sample: () => ProgressSnapshot,
    private readonly outputs: TrackerOutputs,
  ) {}

  /** One sample: reports what changed since the previous one. */
  tick(): void {
    const now = this.sample();
    const before = this.last;
    this.last = now;
    if (now.position && !samePosition(before?.position ?? null, now.position)) this.outputs.onNewPosition(positionLabel(now.position));
    if (!before || before.percent !== now.percent || before.phase !== now.phase || before.status !== now.status || !samePosition(before.position, now.position)) {
      this.outputs.onChange(now);
    }
  }

  /** Samples now and every `intervalMs`; returns the stop function. */
  start(intervalMs = PROGRESS_INTERVAL_MS): () => void {
    this.tick();
    const timer = setInterval(() => this.tick(), intervalMs);
    return () => clearInterval(timer);
  }
}
