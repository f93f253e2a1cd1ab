/**
 * The texture a ClipPlayer draws into, and the decoded frames waiting for it. Three paths:
 * - planes (where the stage has WebGL and the frame is 8-bit I420, NV12, I422 or I444): each frame's planes are
 *   copied as they are (copyTo without a format) into a pool of reused buffers; showing a frame uploads them and
 *   converts them to RGB on the GPU with the clip's own matrix and range (clipPlanes.ts). Why: the browser's own
 *   conversion is not exact (copyTo RGBA got BT.709 limited range 9 levels off in blue here).
 * - pixels (where VideoFrame.copyTo converts to RGBA): each frame is converted to sRGB RGBA bytes as it comes out of
 *   the decoder (copyTo is asynchronous, off the drawing path) into a small pool of reused buffers, and the
 *   VideoFrame is closed as soon as its bytes are copied; showing a frame uploads those bytes (texSubImage2D through
 *   Pixi's BufferImageSource: no premultiply, no colour conversion). Why: with software WebGL (SwiftShader) Chromium
 *   converts a VideoFrame (I420/NV12) to RGB on the main thread inside texImage2D, 10–16 ms per 1280×720 frame,
 *   most of a 60 Hz refresh; the copy costs ~1.2 ms per such frame and gives byte-identical pixels.
 * - frames (the fallback where copyTo ignores or refuses the RGBA format): the VideoFrame itself is the texture's
 *   resource, uploaded (and converted by the browser) when shown.
 * Either way a frame is ready (can be shown) only once it can be uploaded at once: its bytes are copied, or it is a
 * VideoFrame; frame 0 is kept apart for a rewound clip.
 */
import { BufferImageSource, ImageSource, Texture } from 'pixi.js';
import { createPlanesCopier, type FrameCopier, type PlanesTarget } from './clipPlanes';

/** A decoded clip frame waiting to be shown. */
export interface PendingFrame {
  /** Presentation index in the clip. */
  readonly index: number;
  /** True once it can be uploaded now (pixels copied, or a VideoFrame). */
  readonly ready: boolean;
}

export interface ClipTexture {
  readonly texture: Texture;
  readonly path: 'planes' | 'pixels' | 'frames';
  readonly width: number;
  readonly height: number;
  /** Take a decoded frame (owned from now on); a frame not ready yet reports to `events` when its copy is over. */
  accept(frame: VideoFrame, index: number, events: ClipTextureEvents): PendingFrame;
  /** Upload a ready frame now (once); the frame shown before it is freed. */
  show(frame: PendingFrame): void;
  /** Upload frame 0 again (a rewind). */
  showFirst(): void;
  /** Free a frame that will never be shown (passed over, or dropped by a rewind). */
  discard(frame: PendingFrame): void;
  /**
   * Buffers kept beyond frame 0's (null: no bound, a play): free ones beyond it are freed now, busy ones when they
   * come back. The frames path holds no buffers of its own.
   */
  keepBuffers(count: number | null): void;
  /** Bytes of decoded pixels held now: frame 0's, the queue's and the one on screen (the media cache's budget). */
  readonly heldBytes: number;
  release(): void;
}

export interface ClipTextureEvents {
  /** A pending frame's bytes are copied. */
  onReady(): void;
  /** A copy failed: the clip cannot go on. */
  onError(error: Error): void;
}

const RGBA_COPY = { format: 'RGBA', colorSpace: 'srgb' } as const satisfies VideoFrameCopyToOptions;

let rgbaCopySupport: boolean | null = null;

/** Whether VideoFrame.copyTo converts to RGBA here: asked once per page, on the first clip's frame 0. */
function rgbaCopySupported(frame: VideoFrame): boolean {
  rgbaCopySupport ??= detectRgbaCopy(frame);
  return rgbaCopySupport;
}

/**
 * A browser that does not know copyTo's `format` option ignores it (a dictionary member it never reads) and would
 * copy the frame's own planes, so the check is that it reads the member and sizes an RGBA copy at 4 bytes a pixel.
 */
export function detectRgbaCopy(frame: VideoFrame): boolean {
  let formatRead = false;
  const probe = {
    get format() {
      formatRead = true;
      return RGBA_COPY.format;
    },
    colorSpace: RGBA_COPY.colorSpace,
  };
  try {
    const size = frame.allocationSize(probe);
    const rect = frame.visibleRect;
    return formatRead && !!rect && size === rect.width * rect.height * 4;
  } catch {
    return false;
  }
}

/**
 * The texture for a clip, from its frame 0 (owned from now on; closed here or kept for a rewind): the planes path
 * where the stage converts (`planes` given, and `copyPixels`), else the pixels path where the browser converts,
 * else the frames path.
 */
export async function createClipTexture(first: VideoFrame, copyPixels = true, planes?: PlanesTarget): Promise<ClipTexture> {
  const rect = first.visibleRect;
  // The copying paths copy the visible rectangle; a clip whose display size differs (non-square pixels) is scaled
  // by the browser's own upload instead, as before.
  const square = !!rect && rect.width === first.displayWidth && rect.height === first.displayHeight;
  const makers: Array<() => FrameCopier | null> = [];
  if (copyPixels && square) {
    if (planes) makers.push(() => createPlanesCopier(first, planes));
    if (rgbaCopySupported(first)) makers.push(() => rgbaCopier(rect.width, rect.height));
  }
  for (const make of makers) {
    const copier = make();
    if (!copier) continue;
    const bytes = new Uint8Array(copier.bytes);
    try {
      await copier.copy(first, bytes);
      first.close();
      return new CopiedClipTexture(copier, bytes, copier.width, copier.height);
    } catch {
      // A copy this frame cannot do: the next path still shows it.
      copier.destroy();
    }
  }
  return new FramesClipTexture(first);
}

/** The browser converts to sRGB RGBA bytes; the texture uploads them as they are. */
function rgbaCopier(width: number, height: number): FrameCopier {
  // Straight RGBA bytes with alpha 255: nothing to premultiply, and no colour conversion applies to a buffer.
  const source = new BufferImageSource({ resource: new Uint8Array(width * height * 4), width, height, format: 'rgba8unorm', alphaMode: 'premultiplied-alpha' });
  const texture = new Texture({ source });
  return {
    path: 'pixels',
    texture,
    width,
    height,
    bytes: width * height * 4,
    textureBytes: 0,
    copy: (frame, into) => frame.copyTo(into, RGBA_COPY),
    upload(bytes) {
      source.resource = bytes;
      source.update();
    },
    destroy: () => texture.destroy(true),
  };
}

interface CopiedFrame extends PendingFrame {
  ready: boolean;
  pixels: Uint8Array;
  /** Discarded while its copy was running: the buffer goes back to the pool once the copy is over. */
  dropped: boolean;
}

/** Frames copied to bytes ahead of time (RGBA or planes); showing one only uploads them (and converts planes). */
export class CopiedClipTexture implements ClipTexture {
  readonly texture: Texture;
  /** Buffers free for the next frame: reused, so a play allocates at most DECODE_AHEAD + 1 of them once. */
  private readonly free: Uint8Array[] = [];
  /** Buffers kept (beyond frame 0's) once they come back; null while a play runs. */
  private bufferLimit: number | null = null;
  /** The bytes in the texture: not reused until another frame replaces them (a re-upload reads them again). */
  private shownPixels: Uint8Array;
  private released = false;
  /** Buffers alive (frame 0's apart): free, being written, waiting or on screen. */
  allocated = 0;

  constructor(
    private readonly copier: FrameCopier,
    private readonly firstPixels: Uint8Array,
    readonly width: number,
    readonly height: number,
  ) {
    this.shownPixels = firstPixels;
    this.texture = copier.texture;
    copier.upload(firstPixels);
  }

  get path(): FrameCopier['path'] {
    return this.copier.path;
  }

  accept(frame: VideoFrame, index: number, events: ClipTextureEvents): PendingFrame {
    const pixels = this.free.pop() ?? this.allocate();
    const pending: CopiedFrame = { index, ready: false, pixels, dropped: false };
    const copied = (failure: { error: unknown } | null) => {
      frame.close();
      if (this.released) return;
      if (pending.dropped) this.recycle(pixels);
      else if (failure) events.onError(failure.error instanceof Error ? failure.error : new Error(String(failure.error)));
      else {
        pending.ready = true;
        events.onReady();
      }
    };
    this.copier.copy(frame, pixels).then(
      () => copied(null),
      (error: unknown) => copied({ error }),
    );
    return pending;
  }

  show(frame: PendingFrame): void {
    const pixels = (frame as CopiedFrame).pixels;
    this.upload(pixels);
  }

  showFirst(): void {
    this.upload(this.firstPixels);
  }

  discard(frame: PendingFrame): void {
    const pending = frame as CopiedFrame;
    if (pending.ready) this.recycle(pending.pixels);
    else pending.dropped = true;
  }

  keepBuffers(count: number | null): void {
    this.bufferLimit = count;
    // Forgotten buffers are freed by the garbage collector.
    while (count !== null && this.allocated > count && this.free.length > 0) {
      this.free.pop();
      this.allocated--;
    }
  }

  get heldBytes(): number {
    return (1 + this.allocated) * this.copier.bytes + this.copier.textureBytes;
  }

  release(): void {
    this.released = true;
    this.free.length = 0;
    this.allocated = 0;
    this.copier.destroy();
  }

  private upload(pixels: Uint8Array): void {
    const previous = this.shownPixels;
    this.copier.upload(pixels);
    this.shownPixels = pixels;
    if (previous !== this.firstPixels && previous !== pixels) this.recycle(previous);
  }

  /** A buffer no frame uses any more: back to the pool, or freed when an idle clip holds more than it keeps. */
  private recycle(pixels: Uint8Array): void {
    if (this.bufferLimit !== null && this.allocated > this.bufferLimit) this.allocated--;
    else this.free.push(pixels);
  }

  private allocate(): Uint8Array {
    this.allocated++;
    return new Uint8Array(this.copier.bytes);
  }
}

interface FramesFrame extends PendingFrame {
  frame: VideoFrame;
}

/** The fallback: the VideoFrame is the texture's resource; the browser converts it when it is uploaded. */
class FramesClipTexture implements ClipTexture {
  readonly path = 'frames';
  readonly texture: Texture;
  readonly width: number;
  readonly height: number;
  private readonly source: ImageSource;
  /** VideoFrames open besides frame 0: waiting or on screen (the decoder's memory, counted as RGBA). */
  private openFrames = 1;

  constructor(private readonly firstFrame: VideoFrame) {
    this.width = firstFrame.displayWidth;
    this.height = firstFrame.displayHeight;
    this.source = new ImageSource({ resource: firstFrame.clone() });
    this.texture = new Texture({ source: this.source });
  }

  accept(frame: VideoFrame, index: number): PendingFrame {
    const pending: FramesFrame = { index, ready: true, frame };
    this.openFrames++;
    return pending;
  }

  keepBuffers(): void {
    // No pool: each VideoFrame is closed once shown over or discarded.
  }

  get heldBytes(): number {
    return (1 + this.openFrames) * this.width * this.height * 4;
  }

  show(frame: PendingFrame): void {
    this.upload((frame as FramesFrame).frame);
  }

  showFirst(): void {
    this.openFrames++;
    this.upload(this.firstFrame.clone());
  }

  discard(frame: PendingFrame): void {
    (frame as FramesFrame).frame.close();
    this.openFrames--;
  }

  release(): void {
    (this.source.resource as VideoFrame | null)?.close();
    this.firstFrame.close();
    this.texture.destroy(true);
  }

  private upload(frame: VideoFrame): void {
    const previous = this.source.resource as VideoFrame;
    this.source.resource = frame;
    this.source.update();
    previous.close();
    this.openFrames--;
  }
}
