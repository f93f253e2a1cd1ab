/**
 * The job options the participant page acts on, with their defaults: plain values, apart from the study schema
 * (job.ts), whose TypeBox runtime must not reach the first participant bundle (it added 14 KB gzip).
 */
import type { JobFields } from './job.js';

/** How media pixels map to device pixels (job `scaling`). */
export type Scaling = NonNullable<JobFields['scaling']>;
/** Every rating protocol draws media pixel-exact unless the study asks otherwise. */
export const DEFAULT_SCALING: Scaling = 'integer';

/** What the stage does with an interrupted trial unless the study says otherwise (job `interruptedTrials`). */
export const DEFAULT_INTERRUPTIONS = { mode: 'replay', replays: 2 } as const;
export type InterruptionPolicy = { mode: NonNullable<JobFields['interruptedTrials']>; replays: number };

/** The study's interruption policy (job `interruptedTrials`, `interruptionReplays`), defaults filled in. */
export function interruptionPolicyOf(job: Pick<JobFields, 'interruptedTrials' | 'interruptionReplays'>): InterruptionPolicy {
  return { mode: job.interruptedTrials ?? DEFAULT_INTERRUPTIONS.mode, replays: job.interruptionReplays ?? DEFAULT_INTERRUPTIONS.replays };
}

/**
 * After the `count`-th interruption of a trial: null while the policy plays it again, else the answer's `mediaError`
 * (not played through: the quality rules exclude it as a technical fault).
 */
export function interruptedFailure(count: number, cause: string, { mode, replays }: InterruptionPolicy): string | null {
  if (mode === 'replay' && count <= replays) return null;
  return `interrupted ${count} times (last: ${cause}); ${mode === 'replay' ? `${replays} replays` : 'the study skips interrupted trials'}`;
}
