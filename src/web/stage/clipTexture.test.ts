/**
 * The clip texture's bookkeeping, with stand-in VideoFrames whose copies finish when the test says: buffers reused
 * (none allocated per frame), a frame ready only once its bytes are copied, one upload per frame shown, the
 * fallback picked where copyTo would not convert. The pixels themselves are compared in Chromium
 * (video.display.test.ts: the same captures as the VideoFrame upload).
 */
import { describe, expect, it, vi } from 'vitest';

// Pixi reads navigator at import (Node 20 has none).
vi.hoisted(() => {
  if (typeof globalThis.navigator === 'undefined') Object.defineProperty(globalThis, 'navigator', { value: { userAgent: 'node' }, configurable: true });
});

import { createClipTexture, detectRgbaCopy, type ClipTexture, type PendingFrame } from './clipTexture';

const WIDTH = 4;
const HEIGHT = 2;

/** A stand-in VideoFrame: copyTo fills the buffer with `fill` and resolves when `finish()` is called. */
class FakeFrame {
  closed = false;
  private finishCopy: (() => void) | null = null;
  readonly visibleRect = { x: 0, y: 0, width: WIDTH, height: HEIGHT };
  readonly displayWidth: number;
  readonly displayHeight = HEIGHT;
  /** Whether the "browser" knows copyTo's format option. */
  private readonly knowsFormat: boolean;
  /** Copies resolve at once (frame 0, decoded before the texture exists). */
  private readonly immediate: boolean;

  constructor(
    readonly fill: number,
    { displayWidth = WIDTH, knowsFormat = true, immediate = false } = {},
  ) {
    this.displayWidth = displayWidth;
    this.knowsFormat = knowsFormat;
    this.immediate = immediate;
  }
  /** The buffer the last copy wrote into. */
  target: Uint8Array | null = null;

  allocationSize(options: { format?: string }): number {
    // A browser that does not know `format` never reads it and sizes the frame's own I420 planes.
    if (!this.knowsFormat) return WIDTH * HEIGHT * 1.5;
    return options.format === 'RGBA' ? WIDTH * HEIGHT * 4 : WIDTH * HEIGHT * 1.5;
  }

  copyTo(buffer: Uint8Array): Promise<void> {
    if (this.closed) return Promise.reject(new Error('closed'));
    this.target = buffer;
    buffer.fill(this.fill);
    if (this.immediate) return Promise.resolve();
    return new Promise((resolve) => {
      this.finishCopy = resolve;
    });
  }

  async finish(): Promise<void> {
    this.finishCopy?.();
    await Promise.resolve();
    await Promise.resolve();
  }

  clone(): FakeFrame {
    return new FakeFrame(this.fill, { displayWidth: this.displayWidth, immediate: true });
  }

  close(): void {
    this.closed = true;
  }
}

const asFrame = (f: FakeFrame) => f as unknown as VideoFrame;
const events = () => ({ onReady: vi.fn(), onError: vi.fn() });

function uploads(clip: ClipTexture): () => number {
  let count = 0;
  clip.texture.source.on('update', () => count++);
  return () => count;
}

describe('detectRgbaCopy', () => {
  it('is true where copyTo reads the format option and sizes RGBA at 4 bytes a pixel', () => {
    expect(detectRgbaCopy(asFrame(new FakeFrame(0)))).toBe(true);
  });

  it('is false where the browser ignores the option (it would copy I420 planes)', () => {
    expect(detectRgbaCopy(asFrame(new FakeFrame(0, { knowsFormat: false })))).toBe(false);
  });
});

describe('the pixels path', () => {
  it('copies frame 0 and closes it, then keeps the queue in a few reused buffers, uploading each shown frame once', async () => {
    const first = new FakeFrame(100, { immediate: true });
    const clip = await createClipTexture(asFrame(first));
    expect(clip.path).toBe('pixels');
    expect(first.closed).toBe(true);
    expect(clip.texture.source.resource).toEqual(new Uint8Array(WIDTH * HEIGHT * 4).fill(100));
    const count = uploads(clip);
    const on = events();
    // 30 frames through a queue 3 deep: at most 3 waiting + 1 on screen are ever allocated.
    const queue: Array<{ pending: PendingFrame; frame: FakeFrame }> = [];
    for (let index = 1; index <= 30; index++) {
      const frame = new FakeFrame(index);
      queue.push({ pending: clip.accept(asFrame(frame), index, on), frame });
      expect(queue.at(-1)!.pending.ready).toBe(false);
      await frame.finish();
      expect(frame.closed).toBe(true);
      if (queue.length === 3) {
        const { pending } = queue.shift()!;
        expect(pending.ready).toBe(true);
        clip.show(pending);
        expect((clip.texture.source.resource as Uint8Array)[0]).toBe(pending.index);
      }
    }
    expect(on.onReady).toHaveBeenCalledTimes(30);
    expect(count()).toBe(28);
    expect((clip as unknown as { allocated: number }).allocated).toBeLessThanOrEqual(4);
    // A rewind shows frame 0's bytes again (kept apart, never reused).
    clip.showFirst();
    expect(clip.texture.source.resource).toEqual(new Uint8Array(WIDTH * HEIGHT * 4).fill(100));
    clip.release();
  });

  it('a frame dropped while its copy runs gives its buffer back only once the copy is over', async () => {
    const clip = await createClipTexture(asFrame(new FakeFrame(0, { immediate: true })));
    const on = events();
    const slow = new FakeFrame(1);
    const dropped = clip.accept(asFrame(slow), 1, on);
    clip.discard(dropped);
    // Still being written: the next frame must get another buffer.
    const next = new FakeFrame(2);
    clip.accept(asFrame(next), 2, on);
    expect(next.target).not.toBe(slow.target);
    await slow.finish();
    expect(slow.closed).toBe(true);
    expect(on.onReady).not.toHaveBeenCalled();
    // Now free: the following frame reuses it.
    const third = new FakeFrame(3);
    clip.accept(asFrame(third), 3, on);
    expect(third.target).toBe(slow.target);
    clip.release();
  });

  it('a failed copy is reported (the clip cannot go on) and its frame closed', async () => {
    const clip = await createClipTexture(asFrame(new FakeFrame(0, { immediate: true })));
    const on = events();
    const frame = new FakeFrame(1);
    frame.close();
    clip.accept(asFrame(frame), 1, on);
    await Promise.resolve();
    await Promise.resolve();
    expect(on.onError).toHaveBeenCalledTimes(1);
    clip.release();
  });
});

describe('the frames path (fallback)', () => {
  it('is taken where copyTo would not convert, where told to, and for non-square pixels', async () => {
    // Told to (the stage's 'frames' video path): the detection is not even asked.
    const told = await createClipTexture(asFrame(new FakeFrame(0, { knowsFormat: false })), false);
    expect(told.path).toBe('frames');
    const wide = await createClipTexture(asFrame(new FakeFrame(0, { displayWidth: WIDTH * 2 })));
    expect(wide.path).toBe('frames');
    expect(wide.width).toBe(WIDTH * 2);
    // A frame on this path is ready at once (the VideoFrame is uploaded as it is) and closed when replaced.
    const frame = new FakeFrame(1);
    const pending = wide.accept(asFrame(frame), 1, events());
    expect(pending.ready).toBe(true);
    wide.show(pending);
    expect(wide.texture.source.resource).toBe(frame);
    wide.showFirst();
    expect(frame.closed).toBe(true);
    told.release();
    wide.release();
  });
});
