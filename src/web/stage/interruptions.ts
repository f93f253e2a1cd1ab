/**
 * What stops the stage from drawing what its records say (issue 36): a lost WebGL context (a GPU reset, a driver
 * update, a laptop switching GPUs), a hidden page (rAF stops), or a display change (another device pixel ratio,
 * size or refresh rate: a window moved to another screen). The stage ends the step at once when one happens (the
 * record names it and counts only the refreshes drawn before it; leaving full screen is one too), and a play waits
 * until drawing is possible again: the page visible, the context restored, and STEADY_FRAMES frames in a row on time.
 */
import type { STAGE_INTERRUPTIONS } from '../../contract/payloads';
import type { FrameInfo } from './frameClock';

export type StageInterruption = (typeof STAGE_INTERRUPTIONS)[number];

/** Frames in a row without a drop after a return before a play may start again (half a second at 60 Hz). */
export const STEADY_FRAMES = 30;

export class InterruptionWatch {
  private contextLost = false;
  /** After a return, a restore or a display change: waiting for STEADY_FRAMES frames in a row on time. */
  private settling = false;
  private steadyFrames = 0;
  private waiters: Array<() => void> = [];
  private readonly removers: Array<() => void> = [];

  constructor(
    canvas: HTMLCanvasElement,
    private readonly onInterrupt: (cause: StageInterruption) => void,
    clock: { start(): void; stop(): void },
    /** The device pixel ratio changed: the engine measures its canvas again (a ratio-only change may bring no resize). */
    private readonly onPixelRatio: () => void = () => undefined,
  ) {
    const listen = (target: EventTarget, type: string, handler: (event: Event) => void) => {
      target.addEventListener(type, handler);
      this.removers.push(() => target.removeEventListener(type, handler));
    };
    listen(canvas, 'webglcontextlost', (event) => {
      // Asks the browser for a restore (PixiJS and three.js rebuild their GL state on 'webglcontextrestored').
      event.preventDefault();
      this.contextLost = true;
      this.onInterrupt('context-lost');
    });
    listen(canvas, 'webglcontextrestored', () => {
      this.contextLost = false;
      this.settle();
    });
    listen(document, 'visibilitychange', () => {
      if (document.visibilityState === 'hidden') {
        this.onInterrupt('hidden');
        // The gap while hidden is neither a run of dropped frames nor a change of rate (FrameClock.stop).
        clock.stop();
      } else {
        this.settle();
        clock.start();
      }
    });
    // Leaving full screen brings the browser's own bars back over or beside the stimulus mid-step.
    listen(document, 'fullscreenchange', () => {
      if (document.fullscreenElement) return;
      this.settle();
      this.onInterrupt('fullscreen-exit');
    });
    this.watchPixelRatio();
  }

  /** Whether the stage can draw now (visible, with a context, steady again after a return). */
  get drawable(): boolean {
    return !this.contextLost && document.visibilityState !== 'hidden' && !this.settling;
  }

  /** Resolves once the stage can draw (at once when it can). */
  whenDrawable(): Promise<void> {
    if (this.drawable) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Each clock frame: while settling, a dropped one starts the count of steady frames again. */
  frame(frame: FrameInfo): void {
    if (this.settling) {
      this.steadyFrames = frame.dropped ? 0 : this.steadyFrames + 1;
      if (this.steadyFrames >= STEADY_FRAMES) this.settling = false;
    }
    if (this.waiters.length > 0 && this.drawable) for (const resolve of this.waiters.splice(0)) resolve();
  }

  /** A display change the engine saw itself (the canvas resized, the refresh rate changed) during a play. */
  displayChanged(): void {
    this.settle();
    this.onInterrupt('display-changed');
  }

  private settle(): void {
    this.settling = true;
    this.steadyFrames = 0;
  }

  destroy(): void {
    for (const remove of this.removers.splice(0)) remove();
  }

  /** A change of devicePixelRatio: `(resolution: Xdppx)` stops matching; watched again at the new ratio. */
  private watchPixelRatio(): void {
    if (typeof matchMedia !== 'function') return;
    const query = matchMedia(`(resolution: ${window.devicePixelRatio || 1}dppx)`);
    const changed = () => {
      query.removeEventListener('change', changed);
      this.onPixelRatio();
      this.displayChanged();
      this.watchPixelRatio();
    };
    query.addEventListener('change', changed);
    this.removers.push(() => query.removeEventListener('change', changed));
  }
}
