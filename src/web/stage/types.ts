/**
 * The stage's public contract. Everything outside src/web/stage talks to the stage through these types
 * (no pixi.js import here, so importing this file does not pull PixiJS into the first bundle).
 */

/** A rectangle in CSS pixels, relative to the stage canvas's top-left corner. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One media drawn in one place. `media` is a media name (key into the loaded media, see flow/media). */
export interface StageItem {
  media: string;
  rect: Rect;
}

/** How a presentation step ends. Durations are converted to whole frames against the measured refresh period. */
export type StepEnd =
  | { kind: 'duration'; ms: number }
  /** Until every video of the step has ended. */
  | { kind: 'video-end' }
  /** Until the participant clicks the stage, or `maxMs` passes (ACR image: "ends on a click or when its display time ends"). */
  | { kind: 'click'; maxMs: number };

export interface PresentationStep {
  /** Short label stored in the timing record, e.g. 'A', 'B', 'AB', 'gap'. */
  label: string;
  /** What the step shows; empty means a blank screen (e.g. the 1000 ms gap between A and B). */
  items: StageItem[];
  end: StepEnd;
}

/** Per-video presentation data from requestVideoFrameCallback. */
export interface VideoFrameRecord {
  media: string;
  presentedFrames: number;
  firstMediaTime: number | null;
  lastMediaTime: number | null;
  /** expectedDisplayTime of the first presented frame (performance.now timebase). */
  firstExpectedDisplayTime: number | null;
  lastExpectedDisplayTime: number | null;
}

/** "Call on flip" timing of one step: what was asked, what was shown. All times are performance.now() ms. */
export interface PresentationRecord {
  label: string;
  media: string[];
  /** null when the step ends on video end or click. */
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
  /** 'click' when a click-ended step was ended by the participant. */
  endedBy?: 'duration' | 'video-end' | 'click' | 'abort';
  /** Clock frames (rAF callbacks) that drew or kept the step, onset frame included, offset frame excluded.
   * Equals shownFrames when no frame was dropped. */
  renderedFrames?: number;
  /** The late frames counted in droppedFrames: timestamp of the late frame and the interval that preceded it. */
  drops?: { atMs: number; intervalMs: number }[];
  /** performance.now() once the onset frame had finished rendering (forced by a 1-pixel readPixels). */
  renderDoneMs?: number;
  /** event.timeStamp of the click that ended a 'click' step. */
  clickMs?: number;
}

/** What a stage offers to the participant flow. Implemented in src/web/stage (lazy loaded). */
export interface StageController {
  /** Measured refresh period in ms (median frame interval over the warm-up). */
  readonly refreshMs: number;
  /** Current canvas size in CSS pixels (layouts are computed against it). */
  size(): { width: number; height: number };
  /** Natural size of a loaded media (image or video), in pixels. */
  mediaSize(media: string): { width: number; height: number };
  /** Decode and upload the textures of these media so a later play() starts without delay. */
  prepare(media: string[]): Promise<void>;
  /** Play the steps back to back on the frame clock and resolve with one record per step, then show blank. */
  play(steps: PresentationStep[], signal?: AbortSignal): Promise<PresentationRecord[]>;
  /** Show nothing. */
  clear(): void;
}

/** A media file downloaded before the test (flow/media loader); the stage reads it, never the network. */
export interface LoadedMedia {
  name: string;
  kind: 'image' | 'video';
  mime: string;
  blob: Blob;
  /** Object URL of `blob`. */
  url: string;
}

/** Lookup the stage is given; returns undefined for a media that failed to load. */
export type MediaLookup = (name: string) => LoadedMedia | undefined;
