/**
 * GPU textures of the preloaded media. Images are decoded from their blob (createImageBitmap). A video's container
 * is read (its frame count and timestamps); where WebCodecs decodes its codec it becomes a ClipPlayer drawn by the
 * stage's clock, else it plays from its object URL in a detached <video> (the element-timed fallback). Both are
 * uploaded at prepare() so the first frame of a step costs no decode or upload. A 3D object (`model`) is parsed and
 * uploaded by the three.js layer (its own lazy chunk, loaded with the first model). Never touches the network: it
 * only reads LoadedMedia blobs / object URLs.
 */
import { ImageSource, Texture, VideoSource } from 'pixi.js';
import type { Renderer } from 'pixi.js';
import { StageMediaError } from './errors';
import type { ClipTimeline } from './clipCadence';
import { canDecode, ClipPlayer, demuxClip } from './clipPlayer';
import type { LoadedMedia, MediaLookup, SampleFilter } from './types';
import type { LoadedModel } from './objects/modelLoader';
import { MODEL_VIEW_PX } from './objects/objectPose';

/** Parses a 3D media and uploads it to the GPU (the engine's lazily loaded three.js layer). */
export type ModelUploader = (loaded: LoadedMedia) => Promise<LoadedModel>;

/**
 * 'auto': the stage-clock player where WebCodecs decodes the clip, each frame's planes converted by the stage with
 * the clip's matrix and range (else RGBA bytes the browser converts, else the VideoFrame itself); 'pixels': the
 * browser's RGBA conversion (copyTo), the default before the planes path, for comparisons; 'frames': the
 * stage-clock player uploading each VideoFrame itself (its fallback, for comparisons); 'element': always the <video>
 * element.
 */
export type VideoPath = 'auto' | 'pixels' | 'frames' | 'element';

export interface PreparedMedia {
  name: string;
  kind: 'image' | 'video' | 'model';
  /** Texture.EMPTY for a 3D object (three.js draws it). */
  texture: Texture;
  width: number;
  height: number;
  /** A video on the element path (fallback). */
  video?: HTMLVideoElement;
  /** A video on the stage-clock path. */
  clip?: ClipPlayer;
  /** A 3D object, parsed and on the GPU. */
  model?: LoadedModel;
  /** A video's frame timestamps, from its container; null when it could not be read. */
  timeline?: ClipTimeline | null;
  /** Resolves when the media can be played from its start again (a clip re-decoding after a rewind). */
  whenReady?(): Promise<void>;
  /** Bytes of decoded frames a stage-clock clip holds now (counted against CLIP_BYTES_BUDGET). */
  heldBytes?(): number;
  release(): void;
}

/** How long a video may take to become playable from its (local) blob before it counts as undecodable. */
const VIDEO_READY_TIMEOUT_MS = 15000;
/** Prepared media kept at most; the least recently used ones beyond this are released. */
const DEFAULT_CAPACITY = 32;
/**
 * Bytes the prepared stage-clock clips may hold together: their decoded pixels (frame 0 and the frames copied ahead:
 * docs/timing.md "Video, frame-exact") and the encoded packets each keeps. The least recently used clips beyond it
 * are released, never those of the current or next steps. 256 MiB: about 24 idle 720p clips, 10 at 1080p, 2 at 4K
 * (pixels alone; a long clip's packets count too).
 */
export const CLIP_BYTES_BUDGET = 256 * 1024 * 1024;

export class MediaCache {
  private readonly ready = new Map<string, PreparedMedia>();
  private readonly loading = new Map<string, Promise<PreparedMedia>>();
  private destroyed = false;

  constructor(
    private readonly lookup: MediaLookup,
    private readonly renderer: Renderer,
    private readonly capacity = DEFAULT_CAPACITY,
    private readonly videoPath: VideoPath = 'auto',
    private readonly uploadModel: ModelUploader | null = null,
    private readonly clipBytesBudget = CLIP_BYTES_BUDGET,
  ) {}

  /** A prepared media, leaving the eviction order as it is (debug reads). */
  peek(name: string): PreparedMedia | undefined {
    return this.ready.get(name);
  }

  get(name: string): PreparedMedia | undefined {
    const entry = this.ready.get(name);
    if (entry) {
      // Map order is the LRU order: re-insert on use.
      this.ready.delete(name);
      this.ready.set(name, entry);
    }
    return entry;
  }

  /** Load and upload every media; rejects with StageMediaError on the first one that cannot be shown. */
  async prepare(names: readonly string[], keep: ReadonlySet<string> = new Set()): Promise<void> {
    const unique = [...new Set(names)];
    const entries = await Promise.all(unique.map((name) => this.load(name)));
    await Promise.all(entries.map((entry) => entry.whenReady?.()));
    unique.forEach((name) => this.get(name));
    this.evict(new Set([...keep, ...unique]));
  }

  /** Leak checks (the debug hook's `resources()`): media prepared now, the clips among them and their decoded bytes. */
  resources(): { prepared: number; clips: number; clipBytes: number } {
    const clips = [...this.ready.values()].filter((entry) => entry.clip);
    return { prepared: this.ready.size, clips: clips.length, clipBytes: clips.reduce((sum, entry) => sum + (entry.heldBytes?.() ?? 0), 0) };
  }

  destroy(): void {
    this.destroyed = true;
    for (const entry of this.ready.values()) entry.release();
    this.ready.clear();
  }

  private load(name: string): Promise<PreparedMedia> {
    const ready = this.ready.get(name);
    if (ready) return Promise.resolve(ready);
    let pending = this.loading.get(name);
    if (!pending) {
      pending = this.create(name).then(
        (entry) => {
          this.loading.delete(name);
          if (this.destroyed) {
            entry.release();
            throw new Error('Stage destroyed while preparing media');
          }
          this.ready.set(name, entry);
          return entry;
        },
        (error: unknown) => {
          this.loading.delete(name);
          throw error;
        },
      );
      this.loading.set(name, pending);
    }
    return pending;
  }

  private async create(name: string): Promise<PreparedMedia> {
    const loaded = this.lookup(name);
    if (!loaded) throw new StageMediaError(name, 'unknown', 'missing');
    if (loaded.kind === 'model') return this.createModel(loaded);
    const entry = loaded.kind === 'video' ? await createVideo(loaded, this.videoPath, this.renderer) : await createImage(loaded);
    // Binding a source uploads it now rather than in the first frame that draws it.
    this.renderer.texture.initSource(entry.texture.source);
    return entry;
  }

  private async createModel(loaded: LoadedMedia): Promise<PreparedMedia> {
    if (!this.uploadModel) throw new StageMediaError(loaded.name, 'model', 'decode', 'this stage draws no 3D objects');
    const model = await this.uploadModel(loaded);
    return {
      name: loaded.name,
      kind: 'model',
      texture: Texture.EMPTY,
      model,
      width: MODEL_VIEW_PX,
      height: MODEL_VIEW_PX,
      release: () => model.release(),
    };
  }

  /** Least recently used first: beyond the count cap any media, then beyond the byte budget clips only. */
  private evict(keep: ReadonlySet<string>): void {
    for (const [name, entry] of this.ready) {
      if (this.ready.size <= this.capacity) break;
      if (keep.has(name)) continue;
      entry.release();
      this.ready.delete(name);
    }
    const clips = [...this.ready].map(([name, entry]) => ({ name, bytes: entry.heldBytes?.() ?? null }));
    for (const name of clipsOverBudget(clips, keep, this.clipBytesBudget)) {
      this.ready.get(name)!.release();
      this.ready.delete(name);
    }
  }
}

/**
 * The clips to release, least recently used first (`media` in LRU order; bytes null for a media that is not a
 * stage-clock clip: images and 3D objects only count against the count cap), until the clips left hold at most
 * `budget` bytes; those in `keep` stay even when the budget cannot be met without them.
 */
export function clipsOverBudget(
  media: ReadonlyArray<{ name: string; bytes: number | null }>,
  keep: ReadonlySet<string>,
  budget: number,
): string[] {
  let total = media.reduce((sum, m) => sum + (m.bytes ?? 0), 0);
  const released: string[] = [];
  for (const { name, bytes } of media) {
    if (total <= budget) break;
    if (bytes === null || keep.has(name)) continue;
    total -= bytes;
    released.push(name);
  }
  return released;
}

/**
 * Samples a media's texture with `filter` from now on: nearest keeps each media pixel whole (k×k device pixels). The
 * texture is shared by every step that shows the media, so each show sets it; Pixi applies a style change only on
 * update() (its sampler is cached by the style's id).
 */
export function sampleWith(media: PreparedMedia, filter: SampleFilter): void {
  const source = media.texture.source;
  if (source.scaleMode === filter) return;
  source.scaleMode = filter;
  source.style.update();
}

async function createImage(loaded: LoadedMedia): Promise<PreparedMedia> {
  let bitmap: ImageBitmap;
  try {
    // The file's own values: no colour-space conversion (an sRGB or untagged file is drawn as stored: docs/pixels.md
    // "Images"), and alpha kept straight until the upload premultiplies it once.
    bitmap = await createImageBitmap(loaded.blob, { colorSpaceConversion: 'none', premultiplyAlpha: 'none' });
  } catch (error) {
    throw new StageMediaError(loaded.name, 'image', 'decode', String(error));
  }
  // Straight alpha on the GPU, blended as straight alpha (Pixi's 'normal-npm': c·a + background·(1 − a)), so a
  // transparent pixel is composited once, exactly; premultiplied on upload, it would be rounded twice.
  const texture = new Texture({ source: new ImageSource({ resource: bitmap, alphaMode: 'no-premultiply-alpha' }) });
  return {
    name: loaded.name,
    kind: 'image',
    texture,
    width: bitmap.width,
    height: bitmap.height,
    release() {
      texture.destroy(true);
      bitmap.close();
    },
  };
}

async function createVideo(loaded: LoadedMedia, path: VideoPath, renderer: Renderer): Promise<PreparedMedia> {
  const demuxed = await demuxClip(loaded.blob);
  if (path !== 'element' && demuxed?.config && (await canDecode(demuxed.config))) {
    // 'auto': frames converted from their planes by the stage (exact colour), else copied as RGBA.
    const clip = await ClipPlayer.open(loaded.name, { ...demuxed, config: demuxed.config }, path !== 'frames', path === 'auto' ? renderer : undefined);
    if (clip) {
      return {
        name: loaded.name,
        kind: 'video',
        texture: clip.texture,
        clip,
        timeline: clip.timeline,
        width: clip.width,
        height: clip.height,
        whenReady: () => clip.whenReady(),
        heldBytes: () => clip.heldBytes,
        release: () => clip.release(),
      };
    }
  }
  return createVideoElement(loaded, demuxed?.timeline ?? null);
}

async function createVideoElement(loaded: LoadedMedia, timeline: ClipTimeline | null): Promise<PreparedMedia> {
  const video = document.createElement('video');
  // Muted + inline: allowed to start without a fresh user gesture (quality tests are silent).
  video.muted = true;
  video.playsInline = true;
  video.preload = 'auto';
  if (loaded.mime && video.canPlayType(loaded.mime) === '') {
    throw new StageMediaError(loaded.name, 'video', 'decode', `canPlayType("${loaded.mime}") is empty`);
  }
  video.src = loaded.url;
  try {
    await whenPlayable(video, loaded.name);
  } catch (error) {
    // The element would keep its decoder and its buffered bytes while anything holds it: let go of the file.
    video.removeAttribute('src');
    video.load();
    throw error;
  }
  const texture = new Texture({ source: new VideoSource({ resource: video, autoPlay: false, autoLoad: true, updateFPS: 0 }) });
  return {
    name: loaded.name,
    kind: 'video',
    texture,
    video,
    timeline,
    width: video.videoWidth,
    height: video.videoHeight,
    release() {
      // VideoSource.destroy pauses the element and drops its src.
      texture.destroy(true);
    },
  };
}

/** Resolve once the first frame can be drawn and playback can start; StageMediaError on error or timeout. */
function whenPlayable(video: HTMLVideoElement, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: StageMediaError) => {
      clearTimeout(timer);
      video.removeEventListener('canplay', onReady);
      video.removeEventListener('error', onError);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => {
      if (video.videoWidth > 0 && video.videoHeight > 0) done();
      else done(new StageMediaError(name, 'video', 'decode', 'no video track'));
    };
    const onError = () => done(new StageMediaError(name, 'video', 'decode', video.error?.message || `MediaError ${video.error?.code ?? '?'}`));
    const timer = setTimeout(() => done(new StageMediaError(name, 'video', 'decode', 'not playable in time')), VIDEO_READY_TIMEOUT_MS);
    video.addEventListener('canplay', onReady);
    video.addEventListener('error', onError);
    if (video.readyState >= HTMLMediaElement.HAVE_FUTURE_DATA) onReady();
  });
}
