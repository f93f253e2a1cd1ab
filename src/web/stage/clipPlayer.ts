/**
 * A clip decoded with WebCodecs for the stage's clock (WebCodecs stays in this file and clipTexture.ts; see
 * docs/timing.md "Video, frame-exact"). The container is read with mediabunny (its packets and presentation
 * timestamps); a VideoDecoder works a few frames ahead into a small queue (each frame converted to RGBA bytes as it
 * comes out where the browser can: clipTexture.ts); the stage asks, clock frame by clock frame, for the frame due at
 * that refresh, and only that one is uploaded to the texture (once). Frames passed over and replaced ones are freed
 * at once. Frame 0 is kept apart so a rewound clip shows it again before its next onset.
 */
import { BlobSource, EncodedPacketSink, Input, MATROSKA, MP4, OGG, QTFF, WEBM } from 'mediabunny';
import type { EncodedPacket } from 'mediabunny';
import type { Renderer, Texture } from 'pixi.js';
import { StageMediaError } from './errors.js';
import { clipTimeline, type ClipTimeline } from './clipCadence';
import { clipColour, type ClipColour } from './videoColour';
import { createClipTexture, type ClipTexture, type ClipTextureEvents, type PendingFrame } from './clipTexture';

/** Decoded frames kept ahead of the one on screen while the clip plays. */
const DECODE_AHEAD = 6;
/**
 * Frames after frame 0 whose bytes an idle clip (prepared, or rewound, not playing) keeps: enough for the onset,
 * while the ring grows to DECODE_AHEAD once the play starts; the buffers beyond are freed at the rewind (memory:
 * docs/timing.md "Video, frame-exact").
 */
export const IDLE_AHEAD = 2;
/**
 * A decoder that holds its output back beyond the packets an idle clip feeds it (more reordering than the packets
 * show) would leave the clip never ready: each IDLE_STALL_MS without a frame the idle feed doubles, up to the whole
 * clip and its flush, which ends the wait even where nothing comes out.
 */
const IDLE_STALL_MS = 500;

/**
 * A clip whose packets take at most this many bytes is decoded whole when it is prepared (each frame closed as it
 * comes), so a clip corrupt part-way fails its preparation, naming the file, never its trial. 32 MiB is a 25 s
 * 1080p clip at 10 Mb/s; a larger clip is checked only as it plays (docs/timing.md "When the stage cannot draw").
 */
export const DECODE_WHOLE_BYTES = 32 * 1024 * 1024;
/** Chunks queued in the checking decoder at most: a whole clip queued at once would hold a copy of every packet. */
const CHECK_QUEUE = 8;

/**
 * Leak checks (issue 36; the debug hook's `resources()`): what this page's clips hold now. A few counters, kept as
 * frames, decoders and players come and go.
 */
export const clipResources = {
  /** VideoFrames out of a clip's decoder (or cloned from one) not closed yet. */
  openFrames: 0,
  /** Players opened and not released, and the encoded packets (count, bytes) they hold. */
  players: 0,
  packets: 0,
  packetBytes: 0,
  /** VideoDecoders made here and not closed (a decoder closes itself on an error). */
  get decoders(): number {
    pruneDecoders();
    return decoders.size;
  },
};

const decoders = new Set<VideoDecoder>();

function pruneDecoders(): void {
  for (const decoder of decoders) if (decoder.state === 'closed') decoders.delete(decoder);
}

function trackDecoder(decoder: VideoDecoder): VideoDecoder {
  pruneDecoders();
  decoders.add(decoder);
  return decoder;
}

/** Counts the frame open until its (first) close; its clones are counted the same way. */
function trackFrame(frame: VideoFrame): VideoFrame {
  clipResources.openFrames++;
  const close = frame.close.bind(frame);
  const clone = frame.clone.bind(frame);
  let open = true;
  frame.close = () => {
    if (open) clipResources.openFrames--;
    open = false;
    close();
  };
  frame.clone = () => trackFrame(clone());
  return frame;
}

/** What the container says about a clip's video track. */
export interface DemuxedClip {
  timeline: ClipTimeline;
  /** The decoder configuration, or null when the track has no codec WebCodecs knows. */
  config: VideoDecoderConfig | null;
  /** Packets in decode order, with their presentation index. */
  packets: Array<{ packet: EncodedPacket; index: number }>;
  width: number;
  height: number;
  /** The YUV → RGB conversion the clip's tags (or the convention for an untagged clip) call for. */
  colour: ClipColour;
  /** The container's rotation, clockwise degrees (0, 90, 180, 270): the planes path draws the clip turned. */
  rotation: number;
}

/** Read a clip's video track; null when the container cannot be read or has no video track. */
export async function demuxClip(blob: Blob): Promise<DemuxedClip | null> {
  // The video containers a study may use (contract/media-types): the audio-only readers stay out of the bundle.
  const input = new Input({ formats: [MP4, QTFF, WEBM, MATROSKA, OGG], source: new BlobSource(blob) });
  try {
    const track = await input.getPrimaryVideoTrack();
    if (!track) return null;
    const raw: EncodedPacket[] = [];
    for await (const packet of new EncodedPacketSink(track).packets()) raw.push(packet);
    if (raw.length === 0) return null;
    const order = raw.map((p, i) => ({ t: p.timestamp, i })).sort((a, b) => a.t - b.t || a.i - b.i);
    const indexOf = new Map(order.map((o, rank) => [o.i, rank]));
    const lastPacket = raw[order.at(-1)!.i];
    const timeline = clipTimeline(
      order.map((o) => o.t),
      lastPacket.duration > 0 ? lastPacket.duration : null,
    );
    const config = track.codec ? await track.getDecoderConfig() : null;
    const colour = clipColour(await track.getColorSpace().catch(() => null), track.codedWidth, track.codedHeight);
    const rotation = await track.getRotation().catch(() => 0);
    return {
      timeline,
      config,
      packets: raw.map((packet, i) => ({ packet, index: indexOf.get(i)! })),
      width: track.displayWidth,
      height: track.displayHeight,
      colour,
      rotation,
    };
  } catch {
    return null;
  } finally {
    input.dispose();
  }
}

/** WebCodecs is there (it needs a secure context: HTTPS or localhost) and decodes this configuration. */
export async function canDecode(config: VideoDecoderConfig | null): Promise<boolean> {
  if (!config || typeof VideoDecoder === 'undefined' || !globalThis.isSecureContext) return false;
  try {
    return (await VideoDecoder.isConfigSupported({ ...config, optimizeForLatency: true })).supported === true;
  } catch {
    return false;
  }
}

export class ClipPlayer {
  readonly texture: Texture;
  readonly timeline: ClipTimeline;
  readonly frameCount: number;
  /** The encoded packets it keeps (the whole clip, for every play). */
  readonly packetBytes: number;
  /** Presentation index of the clip frame in the texture. */
  shownIndex = 0;
  /** A decoder error, once one happened. */
  error: Error | null = null;
  private decoder: VideoDecoder | null = null;
  /** Decoded frames in presentation order, ready (bytes copied) or still being copied. */
  private readonly decoded: PendingFrame[] = [];
  /**
   * Frames the decoder gave an idle clip beyond IDLE_AHEAD (only a clip whose decode order runs ahead of its
   * presentation order): not copied until the play starts.
   */
  private readonly held: Array<{ frame: VideoFrame; index: number }> = [];
  /** From the onset (or the first frame after 0 asked for) to the rewind: the queue is DECODE_AHEAD deep. */
  private playing = false;
  /** Packets an idle clip keeps in the decoder: IDLE_AHEAD frames out, plus what its reordering needs. */
  private readonly idleInFlight: number;
  /** idleInFlight, doubled at each IDLE_STALL_MS stall until the clip is primed. */
  private idleLimit: number;
  private nextPacket = 0;
  private pending = 0;
  private flushed = false;
  private readonly indexByMicros: Map<number, number>;
  /** What a frame's copy reports (pixels path). */
  private readonly copyEvents: ClipTextureEvents = { onReady: () => this.markPrimed(), onError: (error) => this.fail(error) };
  private primed: Promise<void> = Promise.resolve();
  /** Resolves `primed`: a frame after 0 is ready (decoded, and on the pixels path copied), or none will come. */
  private onPrimed: (() => void) | null = null;
  private released = false;

  private constructor(
    readonly name: string,
    private readonly clip: DemuxedClip & { config: VideoDecoderConfig },
    private readonly frames: ClipTexture,
  ) {
    this.timeline = clip.timeline;
    this.frameCount = clip.timeline.timestamps.length;
    this.indexByMicros = new Map(clip.packets.map(({ packet, index }) => [Math.round(packet.timestamp * 1e6), index]));
    this.texture = frames.texture;
    this.idleInFlight = IDLE_AHEAD - 1 + reorderSpan(clip.packets);
    this.idleLimit = this.idleInFlight;
    clipResources.players++;
    clipResources.packets += clip.packets.length;
    this.packetBytes = encodedBytes(clip);
    clipResources.packetBytes += this.packetBytes;
  }

  /**
   * Decode frame 0 and the next few; null when frame 0 cannot be decoded (the element path is tried instead).
   * `copyPixels` false keeps the VideoFrame upload even where the RGBA copy works (comparisons); with the stage's
   * `renderer`, frames are converted from their planes with the clip's own matrix and range (docs/pixels.md
   * "Video").
   */
  static async open(name: string, clip: DemuxedClip & { config: VideoDecoderConfig }, copyPixels = true, renderer?: Renderer): Promise<ClipPlayer | null> {
    if (encodedBytes(clip) <= DECODE_WHOLE_BYTES) {
      try {
        await decodeWhole(clip);
      } catch (error) {
        throw new StageMediaError(name, 'video', 'decode', `it cannot be decoded whole: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const first = await decodeFirstFrame(clip).catch(() => null);
    if (!first) return null;
    const planes = renderer ? { renderer, colour: clip.colour, rotation: clip.rotation } : undefined;
    const player = new ClipPlayer(name, clip, await createClipTexture(first, copyPixels, planes));
    player.primed = player.restart();
    await player.primed;
    return player;
  }

  get width(): number {
    return this.frames.width;
  }

  get height(): number {
    return this.frames.height;
  }

  /** How shown frames reach the texture: planes converted on the GPU ('planes'), RGBA bytes copied ahead ('pixels'),
   * or the VideoFrame itself ('frames'). */
  get uploadPath(): ClipTexture['path'] {
    return this.frames.path;
  }

  /**
   * Resolves once frames after frame 0 are being decoded again (after a rewind); rejects when the decoding failed
   * before the play, so a broken clip fails its preparation, never its trial.
   */
  async whenReady(): Promise<void> {
    await this.primed;
    if (this.error) throw new StageMediaError(this.name, 'video', 'decode', this.error.message);
  }

  /** Whether the frame `index` can be shown now: on screen already, or decoded and (pixels path) its bytes copied. */
  has(index: number): boolean {
    return index <= this.shownIndex || this.decoded.some((d) => d.index === index && d.ready);
  }

  /**
   * Put the newest ready frame at or before `index` in the texture (uploaded now, once); frames before it that were
   * never shown are freed. A frame still being copied holds back the ones after it (a stall, recorded as such).
   * Returns true when the texture changed.
   */
  show(index: number): boolean {
    if (index > 0) this.startPlaying();
    let next: PendingFrame | null = null;
    while (this.decoded.length > 0 && this.decoded[0].index <= index && this.decoded[0].ready) {
      if (next) this.frames.discard(next);
      next = this.decoded.shift()!;
    }
    this.pump();
    if (!next) return false;
    if (next.index <= this.shownIndex) {
      this.frames.discard(next);
      return false;
    }
    this.frames.show(next);
    this.shownIndex = next.index;
    return true;
  }

  /** The play starts: the queue grows to DECODE_AHEAD (frames held back start their copies: not ready until done). */
  startPlaying(): void {
    if (this.playing || this.released) return;
    this.playing = true;
    // The limit doubled while priming on a slow machine is an idle one: the play decodes DECODE_AHEAD ahead (a
    // doubled limit let it run about 32 frames ahead: 1 GiB of RGBA at 4K).
    this.idleLimit = this.idleInFlight;
    this.frames.keepBuffers(null);
    for (const { frame, index } of this.held.splice(0)) this.decoded.push(this.frames.accept(frame, index, this.copyEvents));
    this.pump();
  }

  /** What the media cache's budget counts: the decoded pixels held now, and the encoded packets kept. */
  get heldBytes(): number {
    return this.frames.heldBytes + this.packetBytes;
  }

  /**
   * Back to frame 0 (on screen now), and decoding again from the start for the next play, idle: the buffers beyond
   * IDLE_AHEAD are freed.
   */
  rewind(): void {
    if (this.released) return;
    this.frames.showFirst();
    this.shownIndex = 0;
    this.playing = false;
    this.primed = this.restart();
  }

  release(): void {
    if (!this.released) {
      clipResources.players--;
      clipResources.packets -= this.clip.packets.length;
      clipResources.packetBytes -= this.packetBytes;
    }
    this.released = true;
    this.stopDecoder();
    this.markPrimed();
    this.frames.release();
  }

  private fail(error: Error): void {
    this.error = error;
    this.markPrimed();
  }

  /** A new decoder from the first packet; frame 0 (already kept) is closed when it comes out again. */
  private restart(): Promise<void> {
    this.stopDecoder();
    this.frames.keepBuffers(this.playing ? null : IDLE_AHEAD);
    this.error = null;
    this.nextPacket = 0;
    this.pending = 0;
    this.flushed = false;
    this.idleLimit = this.idleInFlight;
    const decoder: VideoDecoder = trackDecoder(new VideoDecoder({
      output: (frame) => this.receive(decoder, trackFrame(frame)),
      error: (error) => {
        if (this.decoder !== decoder) return;
        this.fail(error instanceof Error ? error : new Error(String(error)));
      },
    }));
    this.onPrimed?.();
    const primed = new Promise<void>((resolve) => {
      this.onPrimed = resolve;
    });
    decoder.configure({ ...this.clip.config, optimizeForLatency: true });
    this.decoder = decoder;
    const stall = setInterval(() => {
      if (this.decoder !== decoder) return clearInterval(stall);
      this.idleLimit = Math.min(this.clip.packets.length, this.idleLimit * 2);
      this.pump();
    }, IDLE_STALL_MS);
    void primed.then(() => clearInterval(stall));
    this.pump();
    return primed;
  }

  private markPrimed(): void {
    this.onPrimed?.();
    this.onPrimed = null;
  }

  private receive(decoder: VideoDecoder, frame: VideoFrame): void {
    if (decoder !== this.decoder || this.released) {
      frame.close();
      return;
    }
    this.pending = Math.max(0, this.pending - 1);
    const index = this.indexByMicros.get(frame.timestamp) ?? this.nearestIndex(frame.timestamp);
    if (index <= this.shownIndex) frame.close();
    else if (!this.playing && this.decoded.length >= IDLE_AHEAD) this.held.push({ frame, index });
    else {
      const pending = this.frames.accept(frame, index, this.copyEvents);
      this.decoded.push(pending);
      if (pending.ready) this.markPrimed();
    }
    this.pump();
  }

  /**
   * Keep DECODE_AHEAD frames (idle: IDLE_AHEAD, and the packets its reordering needs) decoded or on their way;
   * flush at the end so the decoder gives its last frames.
   */
  private pump(): void {
    const decoder = this.decoder;
    if (!decoder || decoder.state !== 'configured') return;
    const packets = this.clip.packets;
    const limit = this.playing ? Math.max(DECODE_AHEAD, this.idleInFlight) : this.idleLimit;
    while (this.nextPacket < packets.length && this.decoded.length + this.held.length + this.pending < limit) {
      decoder.decode(packets[this.nextPacket++].packet.toEncodedVideoChunk());
      this.pending++;
    }
    if (this.nextPacket >= packets.length && !this.flushed) {
      this.flushed = true;
      // A flush cut short by a rewind (the old decoder closed) must not mark the new one primed; a frame still
      // being copied marks it when its bytes are there.
      const primedBy = () => {
        if (this.decoder === decoder && this.decoded.every((d) => d.ready)) this.markPrimed();
      };
      decoder.flush().then(primedBy, primedBy);
    }
  }

  private nearestIndex(micros: number): number {
    let best = 0;
    let distance = Infinity;
    for (const [t, index] of this.indexByMicros) {
      if (Math.abs(t - micros) < distance) {
        distance = Math.abs(t - micros);
        best = index;
      }
    }
    return best;
  }

  private stopDecoder(): void {
    const decoder = this.decoder;
    this.decoder = null;
    if (decoder && decoder.state !== 'closed') decoder.close();
    for (const d of this.decoded.splice(0)) this.frames.discard(d);
    for (const { frame } of this.held.splice(0)) frame.close();
  }
}

/**
 * Packets the decoder must hold at most to give the next frame in presentation order: 1 where decode order is
 * presentation order; more where frames are decoded ahead of the ones shown before them (B-frames).
 */
export function reorderSpan(packets: ReadonlyArray<{ index: number }>): number {
  const position = new Map(packets.map((p, decodePosition) => [p.index, decodePosition]));
  let span = 1;
  let lastNeeded = -1;
  for (let index = 0; index < packets.length; index++) {
    lastNeeded = Math.max(lastNeeded, position.get(index) ?? lastNeeded);
    // Frames 0..index-1 are out; frame `index` needs every packet up to lastNeeded.
    span = Math.max(span, lastNeeded + 1 - index);
  }
  return span;
}

/** Bytes of a clip's encoded packets. */
function encodedBytes(clip: DemuxedClip): number {
  return clip.packets.reduce((sum, { packet }) => sum + packet.byteLength, 0);
}

/**
 * Decodes every packet of the clip, closing each frame as it comes out (a few chunks queued at a time); rejects on a
 * decoder error or when fewer frames came out than the clip has packets.
 */
async function decodeWhole(clip: DemuxedClip & { config: VideoDecoderConfig }): Promise<void> {
  let frames = 0;
  let failure: unknown = null;
  const decoder = new VideoDecoder({
    output: (frame) => {
      frames++;
      frame.close();
    },
    error: (error) => {
      failure = error;
    },
  });
  const dequeued = () => new Promise((resolve) => decoder.addEventListener('dequeue', resolve, { once: true }));
  try {
    decoder.configure({ ...clip.config, optimizeForLatency: true });
    for (const { packet } of clip.packets) {
      while (failure === null && decoder.decodeQueueSize >= CHECK_QUEUE && 'ondequeue' in decoder) await dequeued();
      if (failure !== null || decoder.state === 'closed') break;
      decoder.decode(packet.toEncodedVideoChunk());
    }
    if (failure === null && decoder.state !== 'closed') await decoder.flush();
  } catch (error) {
    failure ??= error;
  } finally {
    if (decoder.state !== 'closed') decoder.close();
  }
  if (failure !== null) throw failure instanceof Error ? failure : new Error(String(failure));
  if (frames < clip.packets.length) throw new Error(`${clip.packets.length - frames} of its ${clip.packets.length} frames did not decode`);
}

/** Decode packets from the start until the first frame in presentation order comes out. */
async function decodeFirstFrame(clip: DemuxedClip & { config: VideoDecoderConfig }): Promise<VideoFrame> {
  const first = clip.packets.findIndex((p) => p.index === 0);
  let result: VideoFrame | null = null;
  let failure: unknown = null;
  const decoder = trackDecoder(new VideoDecoder({
    output: (output) => {
      const frame = trackFrame(output);
      if (!result && frame.timestamp === Math.round(clip.packets[first].packet.timestamp * 1e6)) result = frame;
      else frame.close();
    },
    error: (error) => {
      failure = error;
    },
  }));
  try {
    decoder.configure({ ...clip.config, optimizeForLatency: true });
    for (const { packet } of clip.packets.slice(0, Math.max(first + 1, DECODE_AHEAD))) decoder.decode(packet.toEncodedVideoChunk());
    await decoder.flush();
  } catch (error) {
    failure ??= error;
  } finally {
    if (decoder.state !== 'closed') decoder.close();
  }
  if (failure || !result) {
    // An unclosed VideoFrame holds a buffer of the decoder's pool (hardware pools are small).
    (result as VideoFrame | null)?.close();
    throw failure ?? new Error('no first frame');
  }
  return result;
}
