/**
 * One 3D step on the stage's clock (no three.js): the camera pose of every frame that draws it, shared by all the
 * step's objects (a side-by-side pair is always seen from one pose), and the step's record.
 * - turntable: the poses are a clip (objectPose.turntableTimeline) played with the video cadence: the pose due at
 *   refresh n (counted from the onset; a dropped display frame counts the refreshes it spanned) is the last pose k
 *   with ceil(t_k · R) ≤ n, and the step ends exactly after the last pose's refreshes. The CadenceTracker writes
 *   which poses were drawn, skipped (a dropped frame) or repeated.
 * - inspect: the pose follows the participant's drags and wheel turns, applied in the next clock frame; the step
 *   lasts until the answer (a 'hold' step).
 */
import type { ResolvedObjectOptions } from '../../../contract/objects';
import { CadenceTracker, cadenceRateHz, frameDueAt, frameStarts, refreshesIn } from '../clipCadence';
import type { FrameInfo } from '../frameClock';
import type { ObjectFrameRecord } from '../types';
import { inspectStartPose, orbit, samePose, turntablePose, turntableTimeline, zoom, type CameraPose } from './objectPose';

export class ObjectRun {
  ended = false;
  /** Refreshes since the onset (0 in the onset frame). */
  private refresh = 0;
  private lastTimestamp = 0;
  private stopped = false;
  private readonly starts: number[] | null;
  private readonly tracker: CadenceTracker;
  private inspectPose: CameraPose;
  /** The pose last drawn, and the pose index (turntable) or drawn frame count (inspect) it had. */
  private drawnPose: CameraPose | null = null;
  private drawnFrames = 0;

  constructor(
    readonly media: string[],
    readonly options: ResolvedObjectOptions,
    private readonly refreshMs: number,
    private readonly onEnded: () => void,
  ) {
    this.starts = options.mode === 'turntable' ? frameStarts(turntableTimeline(options), cadenceRateHz(refreshMs)) : null;
    this.tracker = new CadenceTracker(this.starts);
    this.inspectPose = inspectStartPose(options);
  }

  get mode(): ResolvedObjectOptions['mode'] {
    return this.options.mode;
  }

  /** Refreshes since the onset, as counted for the current frame. */
  get refreshIndex(): number {
    return this.refresh;
  }

  /** In the onset frame. */
  start(frame: FrameInfo): void {
    this.lastTimestamp = frame.timestamp;
  }

  /** Every later clock frame, before the step's end is decided: count refreshes; a finished turntable ends here. */
  tick(frame: FrameInfo): void {
    if (this.stopped) return;
    this.refresh += refreshesIn(frame.intervalMs, this.refreshMs);
    this.lastTimestamp = frame.timestamp;
    if (this.starts && !this.ended && this.refresh >= this.starts.at(-1)!) {
      this.ended = true;
      this.onEnded();
    }
  }

  /** Inspect: a drag of (dx, dy) CSS px since the last one. */
  drag(dx: number, dy: number): void {
    if (this.options.mode === 'inspect') this.inspectPose = orbit(this.inspectPose, dx, dy, this.options);
  }

  /** Inspect: a wheel turn. */
  wheel(deltaY: number): void {
    if (this.options.mode === 'inspect') this.inspectPose = zoom(this.inspectPose, deltaY, this.options);
  }

  /** The pose this frame draws. */
  pose(): CameraPose {
    if (!this.starts) return this.inspectPose;
    return turntablePose(this.options, frameDueAt(this.starts, this.refresh));
  }

  /** The frame draws `pose`; true when it differs from the pose on screen (the objects must be drawn again). */
  drew(pose: CameraPose, frame: FrameInfo): boolean {
    const index = this.starts ? frameDueAt(this.starts, this.refresh) : this.drawnFrames;
    this.drawnFrames += 1;
    this.tracker.drew(this.refresh, index, frame.timestamp);
    const changed = this.drawnPose === null || !samePose(pose, this.drawnPose);
    this.drawnPose = pose;
    return changed;
  }

  /** The step ended (or the play was cut short): the record of what was drawn. */
  stop(): ObjectFrameRecord {
    this.stopped = true;
    const fields = this.tracker.finish(this.refresh, this.lastTimestamp);
    return { media: [...this.media], mode: this.options.mode, posesPerSecond: this.starts ? this.options.posesPerSecond : null, ...fields };
  }
}
