/**
 * The clip texture's bookkeeping, with stand-in VideoFrames whose copies finish when the test says: buffers reused
 * (none allocated per frame), a frame ready only once its bytes are copied, one upload per frame shown, the
 * fallback picked where copyTo would not convert; with a stand-in decoder, the memory a clip holds idle and playing;
 * the media cache's byte budget. The pixels themselves are compared in Chromium (video.display.test.ts: the same
 * captures as the VideoFrame upload).
 */
import { describe, expect, it, vi } from 'vitest';

// Pixi reads navigator at import (Node 20 has none).
vi.hoisted(() => {
  if (typeof globalThis.navigator === 'undefined') Object.defineProperty(globalThis, 'navigator', { value: { userAgent: 'node' }, configurable: true });
});

import { createClipTexture, detectRgbaCopy, type ClipTexture, type PendingFrame } from './clipTexture';
import { ClipPlayer, IDLE_AHEAD, reorderSpan, type DemuxedClip } from './clipPlayer';
import { clipTimeline } from './clipCadence';
import { clipColour } from './videoColour';
import { clipsOverBudget } from './mediaCache';

const WIDTH = 4;
const HEIGHT = 2;

/** A stand-in VideoFrame: copyTo fills the buffer with `fill` and resolves when `finish()` is called. */
class FakeFrame {
  closed = false;
  private finishCopy: (() => void) | null = null;
  readonly visibleRect = { x: 0, y: 0, width: WIDTH, height: HEIGHT };
  readonly displayWidth: number;
  readonly displayHeight = HEIGHT;
  /** Microseconds, as the decoder stamps it. */
  readonly timestamp: number;
  /** Whether the "browser" knows copyTo's format option. */
  private readonly knowsFormat: boolean;
  /** Copies resolve at once (frame 0, decoded before the texture exists). */
  private readonly immediate: boolean;

  constructor(
    readonly fill: number,
    { displayWidth = WIDTH, knowsFormat = true, immediate = false, timestamp = 0 } = {},
  ) {
    this.timestamp = timestamp;
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

  it('an idle clip keeps only a few buffers: those beyond come back freed, not pooled, until a play lifts the bound', async () => {
    const clip = await createClipTexture(asFrame(new FakeFrame(0, { immediate: true })));
    const held = clip as unknown as { allocated: number };
    const frameBytes = WIDTH * HEIGHT * 4;
    const on = events();
    // A play: 6 frames waiting at once, then shown in turn.
    const waiting: PendingFrame[] = [];
    for (let index = 1; index <= 6; index++) waiting.push(clip.accept(asFrame(new FakeFrame(index, { immediate: true })), index, on));
    await Promise.resolve();
    expect(held.allocated).toBe(6);
    expect(clip.heldBytes).toBe(7 * frameBytes);
    // The rewind: bound to 2 while 5 frames are still out; each frees its buffer as it comes back.
    clip.show(waiting[0]);
    clip.keepBuffers(2);
    for (const pending of waiting.slice(1)) clip.discard(pending);
    clip.showFirst();
    expect(held.allocated).toBe(2);
    expect(clip.heldBytes).toBe(3 * frameBytes);
    // The next idle decode reuses those two and needs no more.
    clip.accept(asFrame(new FakeFrame(1, { immediate: true })), 1, on);
    clip.accept(asFrame(new FakeFrame(2, { immediate: true })), 2, on);
    expect(held.allocated).toBe(2);
    // A frame whose copy was running at the bound is freed once the copy is over.
    const slow = new FakeFrame(3);
    clip.discard(clip.accept(asFrame(slow), 3, on));
    expect(held.allocated).toBe(3);
    await slow.finish();
    expect(held.allocated).toBe(2);
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

/**
 * A stand-in VideoDecoder: each chunk decodes at once (a microtask), and frames come out in presentation order, each
 * as soon as every frame before it has been decoded (as a decoder reorders B-frames).
 */
class FakeDecoder {
  state: 'unconfigured' | 'configured' | 'closed' = 'unconfigured';
  private readonly decodedIndexes = new Set<number>();
  private nextOut = 0;
  constructor(private readonly init: { output(frame: VideoFrame): void }) {}
  configure(): void {
    this.state = 'configured';
  }
  decode(chunk: { index: number }): void {
    this.decodedIndexes.add(chunk.index);
    queueMicrotask(() => this.emit());
  }
  async flush(): Promise<void> {
    await Promise.resolve();
    this.flushing = true;
    this.emit();
    this.flushing = false;
  }
  close(): void {
    this.state = 'closed';
  }
  /** Packets beyond the next frame's a decoder may wait for before giving it (more than the packets' order shows). */
  protected holdBack = 0;
  private flushing = false;
  private emit(): void {
    while (this.state === 'configured' && this.decodedIndexes.has(this.nextOut) && (this.flushing || this.decodedIndexes.size > this.nextOut + this.holdBack)) {
      const index = this.nextOut++;
      this.init.output(asFrame(new FakeFrame(index, { immediate: true, timestamp: index * 33_333 })));
    }
  }
}

/** A clip of `count` frames at 30 fps, its packets in the given decode order of presentation indexes. */
function fakeClip(decodeOrder: number[]): DemuxedClip & { config: VideoDecoderConfig } {
  const packets = decodeOrder.map((index) => ({
    index,
    packet: { timestamp: (index * 33_333) / 1e6, duration: 1 / 30, byteLength: 1000, toEncodedVideoChunk: () => ({ index }) },
  }));
  return {
    timeline: clipTimeline(decodeOrder.map((i) => i / 30).sort((a, b) => a - b), 1 / 30),
    config: { codec: 'fake' },
    packets: packets as unknown as DemuxedClip['packets'],
    width: WIDTH,
    height: HEIGHT,
    colour: clipColour(null, WIDTH, HEIGHT),
    rotation: 0,
  };
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

describe('ClipPlayer memory (stand-in decoder)', () => {
  vi.stubGlobal('VideoDecoder', FakeDecoder);
  const frameBytes = WIDTH * HEIGHT * 4;
  /** I P B B order: frame 3 is decoded before 1 and 2. */
  const withBFrames = [0, 3, 1, 2, 6, 4, 5, 9, 7, 8, 12, 10, 11, 15, 13, 14, 18, 16, 17, 19];
  const inOrder = Array.from({ length: 20 }, (_, i) => i);

  it('counts the packets a reordering decoder holds before the next frame comes out', () => {
    expect(reorderSpan(inOrder.map((index) => ({ index })))).toBe(1);
    expect(reorderSpan(withBFrames.map((index) => ({ index })))).toBe(2);
  });

  for (const [label, order] of [['in decode order', inOrder], ['with B-frames', withBFrames]] as const) {
    it(`${label}: idle it holds frame 0 and ${IDLE_AHEAD} ahead; playing, the full queue; rewound, idle again`, async () => {
      const player = (await ClipPlayer.open('clip', fakeClip([...order])))!;
      expect(player.uploadPath).toBe('pixels');
      // The media cache's budget counts the encoded packets too (kept for every play).
      expect(player.packetBytes).toBe(1000 * order.length);
      await settle();
      expect(player.heldBytes - player.packetBytes).toBe((1 + IDLE_AHEAD) * frameBytes);
      expect(player.has(IDLE_AHEAD)).toBe(true);
      expect(player.has(IDLE_AHEAD + 1)).toBe(false);
      // The play: every frame shown in turn, never one missing (the queue keeps ahead of it).
      player.startPlaying();
      await settle();
      let most = 0;
      for (let index = 1; index < order.length; index++) {
        expect(player.has(index)).toBe(true);
        expect(player.show(index)).toBe(true);
        most = Math.max(most, player.heldBytes - player.packetBytes);
        await settle();
      }
      expect(most).toBeGreaterThan((1 + IDLE_AHEAD) * frameBytes);
      expect(most).toBeLessThanOrEqual((1 + 8) * frameBytes);
      player.rewind();
      await player.whenReady();
      await settle();
      expect(player.shownIndex).toBe(0);
      expect(player.heldBytes - player.packetBytes).toBe((1 + IDLE_AHEAD) * frameBytes);
      // Asking for a frame after 0 starts the play too.
      expect(player.show(1)).toBe(true);
      await settle();
      expect(player.heldBytes - player.packetBytes).toBeGreaterThan((1 + IDLE_AHEAD) * frameBytes);
      player.release();
    });
  }

  it('a decoder holding frames back beyond the idle feed still gets the packets it waits for (bounded, not stuck)', async () => {
    class HoldingDecoder extends FakeDecoder {
      protected override holdBack = 6;
    }
    vi.stubGlobal('VideoDecoder', HoldingDecoder);
    try {
      const player = (await ClipPlayer.open('clip', fakeClip([...inOrder])))!;
      player.rewind();
      await player.whenReady();
      expect(player.has(1)).toBe(true);
      player.release();
    } finally {
      vi.stubGlobal('VideoDecoder', FakeDecoder);
    }
  }, 10000);
});

describe('ClipPlayer leaks and failures (issue 36, item 5)', () => {
  const inOrder = Array.from({ length: 20 }, (_, i) => i);

  it('closes frame 0 when the decoder fails after giving it (it held a buffer of the decoder pool)', async () => {
    const made: FakeFrame[] = [];
    let decoders = 0;
    class FailingFlush extends FakeDecoder {
      // The whole-clip check's decoder (the first) works; the first frame's decoder (the second) fails its flush.
      private readonly fails = decoders++ > 0;
      constructor(init: { output(frame: VideoFrame): void; error(e: unknown): void }) {
        super({ output: (frame) => (made.push(frame as unknown as FakeFrame), init.output(frame)) });
      }
      override async flush(): Promise<void> {
        await super.flush();
        if (this.fails) throw new Error('decoder reset');
      }
    }
    vi.stubGlobal('VideoDecoder', FailingFlush);
    try {
      expect(await ClipPlayer.open('clip', fakeClip([...inOrder]))).toBeNull();
      expect(made.length).toBeGreaterThan(0);
      expect(made.every((frame) => frame.closed)).toBe(true);
    } finally {
      vi.stubGlobal('VideoDecoder', FakeDecoder);
    }
  });

  it('rejects whenReady() when the decoding fails before the play: the preparation fails, not the trial', async () => {
    let errorOf: ((error: unknown) => void) | null = null;
    class BreaksAfterFirst extends FakeDecoder {
      private static made = 0;
      constructor(init: { output(frame: VideoFrame): void; error(e: unknown): void }) {
        super(init);
        // The whole-clip check's decoder and frame 0's work; the player's own one fails at once.
        if (BreaksAfterFirst.made++ > 1) errorOf = init.error;
      }
      override decode(chunk: { index: number }): void {
        if (errorOf) queueMicrotask(() => errorOf?.(new Error('corrupt packet')));
        else super.decode(chunk);
      }
    }
    vi.stubGlobal('VideoDecoder', BreaksAfterFirst);
    try {
      const player = (await ClipPlayer.open('broken.mp4', fakeClip([...inOrder])))!;
      await expect(player.whenReady()).rejects.toMatchObject({ name: 'StageMediaError', media: 'broken.mp4', reason: 'decode' });
      player.release();
    } finally {
      vi.stubGlobal('VideoDecoder', FakeDecoder);
    }
  });
});

describe('a clip decoded whole when it is prepared (issue 36)', () => {
  it('a decoder error part-way rejects the preparation, naming the file, with every frame closed', async () => {
    const made: FakeFrame[] = [];
    class FailsAtTen extends FakeDecoder {
      private decoded = 0;
      private readonly fail: (e: unknown) => void;
      constructor(init: { output(frame: VideoFrame): void; error(e: unknown): void }) {
        super({ output: (frame) => (made.push(frame as unknown as FakeFrame), init.output(frame)) });
        this.fail = init.error;
      }
      override decode(chunk: { index: number }): void {
        if (++this.decoded === 10) queueMicrotask(() => this.fail(new Error('corrupt packet')));
        else super.decode(chunk);
      }
    }
    vi.stubGlobal('VideoDecoder', FailsAtTen);
    try {
      await expect(ClipPlayer.open('broken.mp4', fakeClip(Array.from({ length: 20 }, (_, i) => i)))).rejects.toMatchObject({
        name: 'StageMediaError',
        media: 'broken.mp4',
        reason: 'decode',
      });
      expect(made.length).toBeGreaterThan(0);
      expect(made.every((frame) => frame.closed)).toBe(true);
    } finally {
      vi.stubGlobal('VideoDecoder', FakeDecoder);
    }
  });
});

describe('the media cache byte budget', () => {
  const clip = (name: string, bytes: number) => ({ name, bytes });
  it('releases clips least recently used first until the rest fit, never kept ones, never images or models', () => {
    const media = [clip('old.mp4', 100), { name: 'photo.png', bytes: null }, clip('kept.mp4', 100), clip('mid.mp4', 100), clip('new.mp4', 100)];
    expect(clipsOverBudget(media, new Set(['kept.mp4', 'new.mp4']), 250)).toEqual(['old.mp4', 'mid.mp4']);
    expect(clipsOverBudget(media, new Set(), 300)).toEqual(['old.mp4']);
    expect(clipsOverBudget(media, new Set(), 400)).toEqual([]);
    // Kept clips stay even over the budget.
    expect(clipsOverBudget(media, new Set(['old.mp4', 'kept.mp4', 'mid.mp4', 'new.mp4']), 0)).toEqual([]);
  });
});
