import type { ComponentType } from 'react';
import type { AnalysisFamily, BubbleScreening, PairedVote, PiifaceVote, QuadrupleVote, RatingVote, TripletVote } from '../analysis/types.js';
import type { JobResponse } from '../contract/job.js';
import type { MouseSample } from '../contract/payloads.js';
import type { StimulusCheck } from '../contract/quality.js';
import type { MediaAttributes } from '../contract/study.js';
import type { PlaylistStimulus } from '../contract/playlist.js';
import type { Strings } from '../web/i18n/en.js';
import type { Canvas } from '../web/stage/layouts.js';
import type { PresentationStep, StageController } from '../web/stage/types.js';

/**
 * What a protocol is, from study file to export (docs/protocols.md "Adding a protocol"). Each protocol is one folder
 * with an
 * `index.ts` that exports a `ProtocolDefinition`; `registry.ts` lists them in one table that the server and the web
 * both read. The definition holds only plain data and pure functions (no React, no PixiJS, no Node), so it is cheap
 * to import anywhere; the protocol's web part is loaded on demand through `web()`.
 */
export interface ProtocolDefinition<Spec = any> {
  /** subjectiveProtocol of the job (SPEC §3). */
  name: string;
  /** Participant route segment: /{route}/{jobId} (SPEC §2). */
  route: string;
  /** Playlist path: GET /api/{playlistPath}/{jobId} (SPEC §7); several protocols may share one. */
  playlistPath: string;
  /** Browsers and systems the page accepts (SPEC §5). */
  eligibility: EligibilityRules;
  /** Image of the instruction screen (SPEC §2 screen 8), a path under public/. */
  instructionImage?: string;
  /** The instruction image of a study of 3D objects (the same scene with objects instead of pictures). */
  objectInstructionImage?: string;
  /** How a study-file stimulus is checked, served to the client and exported. */
  stimulus: StimulusRules<Spec>;
  /**
   * The categoryTests whose page draws a 3D object wherever it draws an image (docs/3d-objects.md); 'all': every
   * one the protocol takes. Elsewhere a stimulus whose media is a 3D object is refused at import: the page would
   * treat the model file as an image or a video.
   */
  objectCategories?: 'all' | readonly number[];
  /** What the server accepts as answers. */
  answers: AnswerRules;
  /** Session options read from the playlist query (bubble: ft=1 is a free task, completed on its mouse logs). */
  sessionOptions?(query: Readonly<Record<string, string | undefined>>): SessionOptions;
  /** How its stored answers become the analysis's votes (src/analysis): its family and the conversion. */
  analysis: AnalysisAdapter<Spec>;
  /** Gold, trapping and attention-check stimuli: what their `check.answer` looks like and when an answer meets it. */
  checks?: CheckRules<Spec>;
  /** The web part, loaded on demand by the participant page (its own chunk). */
  web(): Promise<{ default: WebModule }>;
}

export interface SessionOptions {
  freeTask: boolean;
}

/** A JSON Schema (draft 7, as ajv takes it). Written as plain objects so the web bundle needs no schema library. */
export type JsonSchema = { readonly [key: string]: unknown };

/** SPEC §5: the allowed browser families (for the job's categoryTest) and operating systems. */
export interface EligibilityRules {
  browsers(categoryId: number): readonly string[];
  oses: readonly string[];
}

/** Flattened stimulus columns of every export table (the full spec travels in stimulus_spec too). */
export interface StimulusColumns {
  stimulus_type: string | null;
  source: string | null;
  source_a: string | null;
  source_b: string | null;
  source_c: string | null;
  source_d: string | null;
  reversed: boolean | null;
  reference_value: number | null;
}

export interface StimulusRules<Spec> {
  /** JSON Schema of one study-file stimulus (a closed object: unknown fields are errors). */
  schema: JsonSchema;
  /** Shape problems of a schema-valid stimulus, as [field ('' = the stimulus itself), message]. */
  problems?(spec: Spec, protocol: string): Array<[field: string, message: string]>;
  /** Every media file the stimulus uses, as [field path, path relative to the study's media folder]. */
  media(spec: Spec): Array<[field: string, path: string]>;
  /** The stimulus as the playlist answer shows it; `mediaName` turns a study path into its served media name. */
  view(id: number, spec: Spec, mediaName: (path: string) => string): unknown;
  /** The export's stimulus columns. */
  columns(spec: Spec): StimulusColumns;
}

export interface AnswerRules {
  /** Rating values the protocol's dialogs can produce (SPEC §5 value mapping); the server refuses any other. */
  ratingValues: readonly number[];
  /**
   * A rating answers one play of its stimulus (bubble: each repetition is rated, nbReplay is the play number); by
   * default a rating answers its stimulus, replays included, once.
   */
  ratingPerPlay?: boolean;
  /** The protocol posts mouse logs to /api/bubblescreenings/. */
  screenings: boolean;
}

/** A stored rating as the analysis reads it. */
export interface AnalysedRating<Spec> {
  stimulusId: number;
  spec: Spec;
  /** The stored value (SPEC §5 mapping: ACR is the index 0 = Excellent … 4 = Bad). */
  value: number;
  /** The declared attributes of a media file of the study (docs/study-files.md); {} when none. */
  attributes(path: string): MediaAttributes;
}

/** A stored bubble screening (one play's mouse logs) with the rating of the same play, if any. */
export interface AnalysedScreening<Spec> {
  stimulusId: number;
  spec: Spec;
  mouseLogs: { mediaA: MouseSample[]; mediaB: MouseSample[] };
  /** How long each media was on screen in the play, ms (from its timing), when known. */
  shownMs: { A: number | null; B: number | null };
  rating: number | null;
}

type Vote<V> = Omit<V, 'observer' | 'flagged'>;

/**
 * The analysis part of a protocol: which family of methods applies and how one stored answer becomes a vote of
 * that family. A `vote` may throw an Error that says what the study file lacks (e.g. an MLDS level).
 */
export type AnalysisAdapter<Spec = any> =
  | { family: 'rating'; vote(answer: AnalysedRating<Spec>): Vote<RatingVote> }
  | { family: 'paired'; vote(answer: AnalysedRating<Spec>): Vote<PairedVote> }
  | { family: 'mlds'; vote(answer: AnalysedRating<Spec>): Vote<QuadrupleVote> }
  | { family: 'triplet'; vote(answer: AnalysedRating<Spec>): Vote<TripletVote> }
  | { family: 'piiface'; vote(answer: AnalysedRating<Spec>): Vote<PiifaceVote> }
  | { family: 'bubble'; screenings(answer: AnalysedScreening<Spec>): Array<Vote<BubbleScreening>> };

/** The analysis part of a rating protocol: one stored answer, one score on the reporting scale. */
export type RatingAdapter<Spec> = Extract<AnalysisAdapter<Spec>, { family: 'rating' }>;

export type { AnalysisFamily };

export interface CheckRules<Spec = any> {
  /** JSON Schema of `check.answer` in this protocol's answer space. */
  answer: JsonSchema;
  /** The answer is a score, so a gold check may give a tolerance (a choice is right or wrong). */
  scored?: boolean;
  /** Whether a stored answer meets the check of its stimulus. */
  passed(check: StimulusCheck, answer: AnalysedRating<Spec>): boolean;
  /** A stored answer in the check's answer space (a score on the reporting scale, a side, an emotion index). */
  answerOf(answer: AnalysedRating<Spec>): StimulusCheck['answer'];
  /**
   * The label the participant's page shows for an answer of the check's space (a key of its string tables), where
   * it shows one: a reason then quotes the answer as the participant saw it ("answered Excellent, expected Bad").
   */
  labelOf?(answer: StimulusCheck['answer']): keyof Strings | undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// The web part

/** The web part of a protocol: a staged module (the shared trial runner plays it) or an interactive one. */
export type WebModule = StagedModule | InteractiveModule;

/** What `plan` may know about the world. Sizes come from the stage; no DOM, no clock, no network. */
export interface PlanContext<P> {
  params: P;
  /**
   * Stage canvas size, CSS px (the stage sits below the question band when there is one), with the device pixel
   * ratio and the study's `scaling` the layouts draw media at (docs/pixels.md).
   */
  canvas: Canvas;
  /** Natural size of a prepared media. */
  mediaSize(media: string): { width: number; height: number };
  /** True when the participant asked to see the stimulus again (SPEC §9 replay timings). */
  replay: boolean;
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

/**
 * A staged protocol, modelled on jsPsych plugins: typed parameters read from the job, a PURE plan of what the stage
 * shows for one stimulus (the stimulus view), a React view that collects the answer, and the value mapping. The
 * participant page's staged runner does the rest: playing the plan, replays, posting, advancing, training vs test.
 */
export interface StagedModule<P = any, A = any> {
  kind: 'staged';
  /** categoryTest values this protocol can show; any other gives 'Error of category'. */
  categories: readonly number[];
  params(job: JobResponse): P;
  /** Media names a stimulus needs on the stage (prepared before it plays). */
  mediaOf(stimulus: PlaylistStimulus, params: P): string[];
  /** PURE: the presentation steps for one stimulus. */
  plan(stimulus: PlaylistStimulus, ctx: PlanContext<P>): PresentationStep[];
  ResponseView: ComponentType<ResponseViewProps<P, A>>;
  /** The stored rating value (SPEC §5 value mapping). */
  value(answer: A, stimulus: PlaylistStimulus): number;
  /** The dialog's label of a stored value (the page names the answer that counts when one was already stored). */
  answerLabel(value: number, stimulus: PlaylistStimulus, params: P, strings: Strings): string | null;
}

/** What the participant page gives an interactive protocol's Test phase. */
export interface InteractiveTestProps<Q> {
  /** The protocol's own query parameters (parseQuery). */
  query: Q;
  /** The page's stage, once its refresh is measured. */
  stage: StageController | null;
}

/**
 * An interactive protocol (bubble, piiface): its own Test view driven by a pure trial machine of its own; the page
 * shell, the journey, the stage and the answer pipeline are the shared ones.
 */
export interface InteractiveModule<Q = any> {
  kind: 'interactive';
  /** Its page's own query parameters (SPEC §2), from location.search. */
  parseQuery(search: string): Q;
  /** Extra parameters of the playlist call (bubble: ft=1 for a free task). */
  playlistQuery?(query: Q): Record<string, string>;
  /** Whether the question band is drawn above the stage (default: SPEC §3, when categoryTest < 3). */
  questionBand?(job: JobResponse): boolean;
  TestView: ComponentType<InteractiveTestProps<Q>>;
  /** Drawn over every phase of the page once the protocol is loaded (piiface: its progress tracker and bar). */
  PageOverlay?: ComponentType;
}
