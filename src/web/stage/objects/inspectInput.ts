/**
 * Inspect input (docs/3d-objects.md): while a step's 3D objects are under inspection, a primary-pointer drag on the
 * canvas turns their camera (captured, so it goes on outside the canvas) and the wheel zooms it. The engine feeds it
 * the pointer down and move events it already listens to (clicks, the bubble window); up, cancel and wheel it
 * listens to on the canvas itself. The camera changes are applied in the next clock frame (the pose is read when the
 * frame is drawn).
 */
import type { Application } from 'pixi.js';
import type { ObjectRun } from './objectRun';

export class InspectInput {
  /** The pointer position of the drag in progress (client px), or null. */
  private dragFrom: { x: number; y: number; pointerId: number } | null = null;

  /**
   * `object`: the running step's 3D objects, or null; `pageHeight`: the canvas's CSS height (a wheel that reports
   * pages).
   */
  constructor(
    private readonly canvas: Application['canvas'],
    private readonly object: () => Pick<ObjectRun, 'mode' | 'drag' | 'wheel'> | null,
    private readonly pageHeight: () => number,
  ) {
    this.canvas.addEventListener('wheel', this.handleWheel, { passive: false });
    this.canvas.addEventListener('pointerup', this.handlePointerUp);
    this.canvas.addEventListener('pointercancel', this.handlePointerUp);
  }

  /** A 3D step starts: an inspected one takes the touch gestures (no scrolling, no pinch zoom of the page). */
  begin(mode: ObjectRun['mode']): void {
    this.canvas.style.touchAction = mode === 'inspect' ? 'none' : '';
  }

  /** The 3D step ended: a drag in progress stops, the page's touch gestures are back. */
  end(): void {
    this.dragFrom = null;
    this.canvas.style.touchAction = '';
  }

  /** A primary pointerdown on the canvas. */
  pointerDown(event: PointerEvent): void {
    if (this.object()?.mode === 'inspect') {
      // Inspect: a drag turns the camera; captured, so it goes on outside the canvas.
      this.dragFrom = { x: event.clientX, y: event.clientY, pointerId: event.pointerId };
      this.canvas.setPointerCapture?.(event.pointerId);
      event.preventDefault();
    }
  }

  /** A primary pointermove anywhere in the window. */
  pointerMove(event: PointerEvent): void {
    const drag = this.dragFrom;
    const object = drag && drag.pointerId === event.pointerId ? this.object() : null;
    if (drag && object) {
      // Applied in the next clock frame (the pose is read when the frame is drawn).
      object.drag(event.clientX - drag.x, event.clientY - drag.y);
      drag.x = event.clientX;
      drag.y = event.clientY;
    }
  }

  destroy(): void {
    this.canvas.removeEventListener('wheel', this.handleWheel);
    this.canvas.removeEventListener('pointerup', this.handlePointerUp);
    this.canvas.removeEventListener('pointercancel', this.handlePointerUp);
  }

  private readonly handlePointerUp = (event: PointerEvent): void => {
    if (this.dragFrom?.pointerId === event.pointerId) this.dragFrom = null;
  };

  private readonly handleWheel = (event: WheelEvent): void => {
    const object = this.object();
    if (object?.mode !== 'inspect') return;
    event.preventDefault();
    // Lines and pages as pixels (Firefox reports lines).
    const scale = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? this.pageHeight() : 1;
    object.wheel(event.deltaY * scale);
  };
}
