import type { ComponentType } from 'react';
import type { JobResponse } from '../../contract/job.js';
import type { PlaylistStimulus } from '../../contract/playlist.js';
import type { RatingProtocol } from '../../contract/protocols.js';
import type { Strings } from '../i18n/en.js';
import type { PresentationStep } from '../stage/types.js';

/**
 * A rating protocol, modelled on jsPsych plugins: a name, typed parameters read from the job, a PURE plan of
 * what the stage shows for one stimulus, a React view that collects the answer, and the mapping of that answer
 * to the stored value. The generic test page (src/web/test-page) does everything else: playing the plan on the
 * stage, replays, posting ratings (idempotent, retried), advancing, training vs test.
 */

/** What `plan` may know about the world. Sizes come from the stage; no DOM, no clock, no network. */
export interface PlanContext<P> {
  params: P;
  /** Stage canvas size, CSS px. */
  canvas: { width: number; height: number };
  /** Natural size of a prepared media. */
  mediaSize(media: string): { width: number; height: number };
  /** True when the participant asked to see the stimulus again (SPEC §9 replay timings). */
  replay: boolean;
  /** Height of the question band drawn above the stimuli (0 when the question is not along the test). */
  topBand: number;
}

export interface ResponseViewProps<P, A> {
  params: P;
  stimulus: PlaylistStimulus;
  /** 0-based position in the playlist, and its length (the vote modal shows "index / length"). */
  index: number;
  total: number;
  training: boolean;
  strings: Strings;
  /** A rating post is in flight: the view keeps its answer but disables its buttons. */
  busy: boolean;
  /** Submit this answer; the page posts it. Keep the answer shown: a failed post lets the participant submit again. */
  onAnswer(answer: A): void;
  /** Play the stimulus again (the page counts nbReplay). */
  onReplay(): void;
}

export interface ProtocolModule<P = unknown, A = unknown> {
  name: RatingProtocol;
  /** categoryTest values this protocol can show; any other gives 'Error of category'. */
  categories: readonly number[];
  /** Typed parameters from the job (labels, durations, layout). */
  params(job: JobResponse): P;
  /** Media names a stimulus needs on the stage (prepared before it plays). */
  mediaOf(stimulus: PlaylistStimulus, params: P): string[];
  /** PURE: the presentation steps for one stimulus. */
  plan(stimulus: PlaylistStimulus, ctx: PlanContext<P>): PresentationStep[];
  ResponseView: ComponentType<ResponseViewProps<P, A>>;
  /** The stored rating value (SPEC §5 value mapping). */
  value(answer: A, stimulus: PlaylistStimulus): number;
  /** Image shown on the instruction screen (SPEC §2 screen 8), a URL under public/. */
  instructionImage?: string;
}

/** Any module, for the registry table (parameters and answers are private to each module). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyProtocolModule = ProtocolModule<any, any>;
