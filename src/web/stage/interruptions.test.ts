import { afterEach, describe, expect, it, vi } from 'vitest';
import { InterruptionWatch, STEADY_FRAMES } from './interruptions';

/**
 * The watch on its own (issue 36): a hidden page interrupts and stops the clock; the stage may draw again only once
 * the page is visible and STEADY_FRAMES frames in a row came on time. (A lost context is judged from captured
 * pixels: interruptions.display.test.ts.)
 */

class FakeDocument extends EventTarget {
  visibilityState: 'visible' | 'hidden' = 'visible';
  fullscreenElement: object | null = null;
  set(state: 'visible' | 'hidden'): void {
    this.visibilityState = state;
    this.dispatchEvent(new Event('visibilitychange'));
  }
}

afterEach(() => vi.unstubAllGlobals());

describe('InterruptionWatch', () => {
  it('interrupts on a hidden page, stops the clock, and is drawable again after the return and 30 steady frames', async () => {
    const doc = new FakeDocument();
    vi.stubGlobal('document', doc);
    const causes: string[] = [];
    const clock = { start: vi.fn(), stop: vi.fn() };
    const watch = new InterruptionWatch(new EventTarget() as HTMLCanvasElement, (cause) => causes.push(cause), clock);
    expect(watch.drawable).toBe(true);
    doc.set('hidden');
    expect(causes).toEqual(['hidden']);
    expect(clock.stop).toHaveBeenCalledTimes(1);
    let drawable = false;
    void watch.whenDrawable().then(() => (drawable = true));
    doc.set('visible');
    expect(clock.start).toHaveBeenCalledTimes(1);
    const frame = (dropped: boolean) => watch.frame({ index: 0, timestamp: 0, intervalMs: 16.7, dropped });
    for (let i = 0; i < STEADY_FRAMES - 1; i++) frame(false);
    // A dropped frame starts the count again.
    frame(true);
    for (let i = 0; i < STEADY_FRAMES - 1; i++) frame(false);
    await Promise.resolve();
    expect(drawable).toBe(false);
    frame(false);
    await Promise.resolve();
    expect(drawable).toBe(true);
    watch.destroy();
  });

  it('a lost context interrupts and asks for a restore; the restore makes it drawable after steady frames', () => {
    vi.stubGlobal('document', new FakeDocument());
    const canvas = new EventTarget() as HTMLCanvasElement;
    const causes: string[] = [];
    const watch = new InterruptionWatch(canvas, (cause) => causes.push(cause), { start() {}, stop() {} });
    const lost = new Event('webglcontextlost', { cancelable: true });
    canvas.dispatchEvent(lost);
    expect([causes, lost.defaultPrevented, watch.drawable]).toEqual([['context-lost'], true, false]);
    canvas.dispatchEvent(new Event('webglcontextrestored'));
    expect(watch.drawable).toBe(false);
    for (let i = 0; i < STEADY_FRAMES; i++) watch.frame({ index: i, timestamp: i, intervalMs: 16.7, dropped: false });
    expect(watch.drawable).toBe(true);
    watch.destroy();
  });

  it('leaving full screen interrupts; entering it does not', () => {
    const doc = new FakeDocument();
    vi.stubGlobal('document', doc);
    const causes: string[] = [];
    const watch = new InterruptionWatch(new EventTarget() as HTMLCanvasElement, (cause) => causes.push(cause), { start() {}, stop() {} });
    doc.fullscreenElement = {};
    doc.dispatchEvent(new Event('fullscreenchange'));
    expect(causes).toEqual([]);
    doc.fullscreenElement = null;
    doc.dispatchEvent(new Event('fullscreenchange'));
    expect([causes, watch.drawable]).toEqual([['fullscreen-exit'], false]);
    watch.destroy();
  });
});
