/**
 * The stage's public contract. Everything outside src/web/stage talks to the stage through these types
 * (no pixi.js import here, so importing this file does not pull PixiJS into the first bundle).
 */
import type { StageInterruption } from './interruptions';
import type { Scaling } from '../../contract/job-options';
import type { ResolvedObjectOptions } from '../../contract/objects';

/** A rectangle in CSS pixels, relative to the stage canvas's top-left corner. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The gaze-contingent view of the bubble test: the media blurred with a gaussian of deviation `sigma`, except for a
 * clear circular window of `radius` centred on the pointer (both CSS px of the drawn media; 0: no blur / no window).
 */
export interface BubbleWindow {
  sigma: number;
  radius: number;
}

/** How a texture is sampled: 'nearest' replicates media pixels (exact), 'linear' interpolates (resampled). */
export type SampleFilter = 'nearest' | 'linear';

/**
 * How one item's media pixels land on the display's device pixels (docs/pixels.md), chosen by the
 * layout: `scale` device pixels per media pixel (a whole number unless `scaling` is 'fit'), `device` the rectangle in
 * device pixels of the canvas (whole numbers when exact), `fits` false when it does not fit the canvas (the
 * participant page then pauses: a stimulus is never shrunk to fit unless the study asked for 'fit').
 */
export interface ItemPixels {
  scaling: Scaling;
  scale: number;
  filter: SampleFilter;
  device: Rect;
  fits: boolean;
}

/** What the stage drew of one item, in the record (exports: the scale, the filter and the device rectangle). */
export interface DrawnItem {
  media: string;
  scaling: Scaling;
  /** Device pixels per media pixel, horizontally (the vertical one is the same unless 'fit' rounded it). */
  scale: number;
  filter: SampleFilter;
  /** Device pixels of the canvas (whole numbers when exact). */
  device: Rect;
}

/** One media drawn in one place. `media` is a media name (key into the loaded media, see flow/media). */
export interface StageItem {
  media: string;
  /** CSS px of the canvas; with `pixels` the exact device rectangle divided by the device pixel ratio. */
  rect: Rect;
  /** Absent: fitted in CSS px and filtered linearly (the bubble, 3D objects, tests). */
  pixels?: ItemPixels;
  /** Drawn blurred with a clear window at the pointer (at most one such item per step). */
  bubble?: BubbleWindow;
  /** A video shown on its first frame, not playing (the bubble's screen waiting for the click). */
  paused?: boolean;
  /**
   * A 3D object (a `model` media) and how it is presented. All 3D items of a step share one camera: they must have
   * the same mode and options (the first one's are used).
   */
  object?: ResolvedObjectOptions;
}

/** How a presentation step ends. Durations are converted to whole frames against the measured refresh period. */
export type StepEnd =
  | { kind: 'duration'; ms: number }
  /** Until every playing video of the step has ended: exactly after its last frame's refreshes (stage clock). */
  | { kind: 'video-end' }
  /**
   * Until the participant clicks the stage (or the page reports a click with `click()`), or `maxMs` passes when
   * given (ACR image: "ends on a click or when its display time ends").
   */
  | { kind: 'click'; maxMs?: number }
  /** Until the page calls `release()` (the participant answered): a face stays up while the radios are answered. */
  | { kind: 'hold' };

export interface PresentationStep {
  /** Short label stored in the timing record, e.g. 'A', 'B', 'AB', 'gap'. */
  label: string;
  /** What the step shows; empty means a blank screen (e.g. the 1000 ms gap between A and B). */
  items: StageItem[];
  end: StepEnd;
}

/**
 * What the stage drew of one video during one step, counted by the stage itself (never the element's own counters).
 * Clip frames are numbered in presentation order from 0; refreshes are counted from the step's onset (0 = the onset
 * frame, a dropped display frame counts the refreshes it spanned). Frame k is due from refresh ceil(t_k · R).
 */
export interface VideoFrameRecord {
  media: string;
  /**
   * 'stage-clock': decoded with WebCodecs and drawn by the stage's frame clock at the clip's cadence;
   * 'element-timed': the fallback (no WebCodecs, e.g. a plain-HTTP page, or no decoder for the codec): the
   * <video> element's clock chose the frames, and the stage counted those it drew by their mediaTime.
   */
  timing: 'stage-clock' | 'element-timed';
  /** Frames in the clip (from its container); null when the container could not be read. */
  frames: number | null;
  /** Distinct clip frames the stage drew. */
  drawnFrames: number;
  /** Clip frames due while the step was on screen that were never drawn; null when the timeline is unknown. */
  skippedFrames: number | null;
  /** Clip frames kept on screen for more refreshes than their cadence gives them; null when unknown. */
  repeatedFrames: number | null;
  /** The skipped frames and the refresh each was due at (the first 1000). */
  skips?: { frame: number; refresh: number }[];
  /** The repeated frames, the first refresh beyond their cadence, and how many extra refreshes (the first 1000). */
  repeats?: { frame: number; refresh: number; refreshes: number }[];
  /** Frames first drawn after the refresh they were due at (a late decode or a dropped display frame). */
  late?: { frame: number; refresh: number; refreshes: number }[];
  /** The first clip frame drawn and the rAF timestamp of the frame that drew it (the step's onset). */
  firstFrame: number | null;
  firstOnsetMs: number | null;
  /** The last clip frame drawn, when it was first drawn, and when it went (the step's offset). */
  lastFrame: number | null;
  lastOnsetMs: number | null;
  lastOffsetMs: number | null;
}

/**
 * What the stage drew of the 3D objects of one step (all drawn from one camera pose per frame). A turntable is
 * counted as a clip of poses (frames = poses, pose k due at refresh ceil(k / posesPerSecond · R)): skipped poses
 * are those a dropped frame never showed. Inspect: frames, skipped and repeated are null; drawnFrames counts frames.
 */
export interface ObjectFrameRecord extends Omit<VideoFrameRecord, 'media' | 'timing'> {
  media: string[];
  mode: 'turntable' | 'inspect';
  /** Turntable pose rate; null in inspect mode. */
  posesPerSecond: number | null;
}

/** "Call on flip" timing of one step: what was asked, what was shown. All times are performance.now() ms. */
export interface PresentationRecord {
  label: string;
  media: string[];
  /** Frames asked for: the duration, or a click step's maximum; null for hold and video-end steps. */
  requestedFrames: number | null;
  shownFrames: number;
  /** Timestamp of the frame that first showed the step. */
  onsetMs: number;
  /** Timestamp of the frame that removed it (the next step's first frame). */
  offsetMs: number;
  /** Frame intervals longer than 1.5 refresh periods while the step was on screen. */
  droppedFrames: number;
  refreshMs: number;
  videos?: VideoFrameRecord[];
  /** The step's 3D objects: the poses drawn. */
  object?: ObjectFrameRecord;
  /** What ended the step: its duration, its videos' end, a click, the page's release() (an answer), or an abort. */
  endedBy?: 'duration' | 'video-end' | 'click' | 'answer' | 'abort' | 'interrupted';
  /** Why the stage stopped drawing during this step (stage/interruptions.ts), when, and the refreshes drawn before. */
  interrupted?: { cause: StageInterruption; atMs: number; refreshes: number };
  /** Clock frames (rAF callbacks) that drew or kept the step, onset frame included, offset frame excluded.
   * Equals shownFrames when no frame was dropped. */
  renderedFrames?: number;
  /** The late frames counted in droppedFrames: timestamp of the late frame and the interval that preceded it. */
  drops?: { atMs: number; intervalMs: number }[];
  /** performance.now() once the onset frame had finished rendering (forced by a 1-pixel readPixels). */
  renderDoneMs?: number;
  /** event.timeStamp of the click that ended a 'click' step. */
  clickMs?: number;
  /** The factor a layout shrank the media by to fit the window (bubble), when it had to. */
  scale?: number;
  /** The device pixel ratio the step was drawn at, and each drawn media's scale, filter and device rectangle. */
  pixelRatio?: number;
  items?: DrawnItem[];
}

export interface PlayOptions {
  /** Aborting ends the current step at the next frame (endedBy 'abort') and skips the rest. */
  signal?: AbortSignal;
  /** Called in the frame that first draws step `index` (its rAF timestamp, performance.now timebase). */
  onOnset?(index: number, label: string, timestampMs: number): void;
  /** Called in every frame that draws a 3D step, with the camera pose it draws (docs/3d-objects.md). */
  onCameraPose?(sample: CameraPoseSample): void;
}

/** The camera pose one frame drew: `frame` = refreshes since the step's onset, `t` = the frame's rAF timestamp. */
export interface CameraPoseSample {
  step: number;
  mode: 'turntable' | 'inspect';
  frame: number;
  t: number;
  az: number;
  el: number;
  dist: number;
}

/** The display's refresh as the stage measured it (contract TimingEnvelope.refresh). */
export interface RefreshInfo {
  /** Fitted period, ms. */
  periodMs: number;
  /** Its standard error, ms. */
  uncertaintyMs: number;
  /** Frame intervals fitted (dropped frames left out). */
  intervals: number;
  /** Changes of refresh rate during the session: from the frame `atMs` on, the period was `toMs`. */
  changes: Array<{ atMs: number; fromMs: number; toMs: number }>;
}

/** What a stage offers to the participant flow. Implemented in src/web/stage (lazy loaded). */
export interface StageController {
  /** Measured refresh period in ms (a fit over many frames, sharpened as frames come; follows a change of rate). */
  readonly refreshMs: number;
  /** The estimate behind refreshMs and the changes of rate seen (null until measured): goes into the timing envelope. */
  readonly refresh: RefreshInfo | null;
  /** Current canvas size in CSS pixels (layouts are computed against it). */
  size(): { width: number; height: number };
  /** The canvas in device pixels (its backing store, one texel per device pixel) and the device pixel ratio. */
  devicePixels(): { width: number; height: number; ratio: number };
  /** Where the canvas is in the window (client CSS px): pointer positions map onto it. */
  clientRect(): Rect;
  /** Natural size of a loaded media, in pixels (a 3D object: the square it is drawn in at most, MODEL_VIEW_PX). */
  mediaSize(media: string): { width: number; height: number };
  /**
   * Decode and upload these media (names, or items: a bubble item is also blurred now), so that a later play()
   * starts without delay.
   */
  prepare(what: ReadonlyArray<string | StageItem>): Promise<void>;
  /** Play the steps back to back on the frame clock and resolve with one record per step, then show blank. */
  play(steps: PresentationStep[], options?: PlayOptions): Promise<PresentationRecord[]>;
  /** A click the page saw (event.timeStamp): ends a 'click' step of the running play at the next frame. */
  click(timestampMs: number): void;
  /** Ends a 'hold' step of the running play at the next frame (endedBy 'answer'). */
  release(): void;
  /** Show nothing (ends a running play at the next frame). */
  clear(): void;
  /**
   * Resolves once the stage can draw: at once, or after an interruption when the page is visible, the context back
   * and 30 frames in a row on time. A page that lays a play out for the canvas waits for this first, so that its
   * layout is the one the play starts on.
   */
  whenDrawable(): Promise<void>;
}

/** A media file downloaded before the test (flow/media loader); the stage reads it, never the network. */
export interface LoadedMedia {
  name: string;
  kind: 'image' | 'video' | 'model';
  mime: string;
  blob: Blob;
  /** A `.gltf`'s side files (buffers, textures), by the relative URI the file gives them. */
  files?: ReadonlyMap<string, Blob>;
  /** Object URL of `blob`. */
  url: string;
}

/** Lookup the stage is given; returns undefined for a media that failed to load. */
export type MediaLookup = (name: string) => LoadedMedia | undefined;
