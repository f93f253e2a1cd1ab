/**
 * The stage's debug side: the pixel probes (read right after the next clock frame renders, all of a frame's probes
 * answered after it), the render-cost measurement for benchmarks, and the `window.__glimpseStage` object built from
 * the engine's parts (debugHook.ts installs it).
 */
import type { Renderer, WebGLRenderer } from 'pixi.js';
import type { BubbleLayer } from './bubble/bubbleLayer';
import { clipResources } from './clipPlayer';
import type { GlimpseStageDebug, Rgba } from './debugHook';
import type { FrameClock } from './frameClock';
import type { MediaCache } from './mediaCache';
import type { CameraPose } from './objects/objectPose';
import type { ObjectRenderer } from './objects/objectRenderer';
import type { PresentationRecord, Rect, StageController } from './types';

/** A read of `width` device pixels of one row (1 for a single pixel), from CSS px (x, y). */
interface PendingProbe {
  x: number;
  y: number;
  width: number;
  resolve(pixels: Uint8Array): void;
  reject(error: unknown): void;
}

/**
 * Read device pixels of a row (from the top-left) of the frame just rendered into `pixels` (RGBA, as many as it
 * holds); waits for the GPU. A probe gets a buffer of its own; the engine's own waits reuse one.
 */
export function readRow(renderer: Renderer, x: number, y: number, pixels: Uint8Array): Uint8Array {
  const gl = (renderer as WebGLRenderer).gl;
  if (!gl) throw new Error('the stage needs the WebGL renderer');
  const width = pixels.length / 4;
  const bound = gl.getParameter(gl.FRAMEBUFFER_BINDING) as WebGLFramebuffer | null;
  if (bound !== null) gl.bindFramebuffer(gl.FRAMEBUFFER, null);
  gl.readPixels(x, gl.drawingBufferHeight - 1 - y, width, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
  if (bound !== null) gl.bindFramebuffer(gl.FRAMEBUFFER, bound);
  return pixels;
}

/** The probes waiting for the next clock frame, and the benchmarks' render costs. */
export class StageProbes {
  private probes: PendingProbe[] = [];
  /** Benchmarks (debug hook `measureRender`): every frame renders in full, waits for the GPU and notes the cost. */
  renderCosts: number[] | null = null;

  constructor(private readonly renderer: Renderer) {}

  /** Read one canvas pixel (CSS px) right after the next clock frame (the read itself waits for the GPU). */
  probe(x: number, y: number): Promise<Rgba> {
    return new Promise((resolve, reject) => this.probes.push({ x, y, width: 1, resolve: ([r, g, b, a]) => resolve([r, g, b, a]), reject }));
  }

  /**
   * Read a run of one canvas row right after the next clock frame: from CSS px (x, y), `width` CSS px long, as RGBA
   * bytes of device pixels (one readPixels: a watcher's cost stays one GPU wait per frame, however many points).
   */
  probeRow(x: number, y: number, width: number): Promise<Uint8Array> {
    const resolution = this.renderer.resolution;
    return new Promise((resolve, reject) => this.probes.push({ x, y, width: Math.max(1, Math.round(width * resolution)), resolve, reject }));
  }

  /** After a render: every waiting probe reads the frame just drawn. */
  answer(): void {
    const resolution = this.renderer.resolution;
    for (const probe of this.probes.splice(0)) {
      try {
        probe.resolve(readRow(this.renderer, Math.floor(probe.x * resolution), Math.floor(probe.y * resolution), new Uint8Array(probe.width * 4)));
      } catch (error) {
        probe.reject(error);
      }
    }
  }

  /** Unmount: every waiting probe rejects with `error`. */
  rejectAll(error: unknown): void {
    this.probes.splice(0).forEach((probe) => probe.reject(error));
  }

  measureRender(on: boolean): number[] {
    const costs = this.renderCosts ?? [];
    this.renderCosts = on ? [] : null;
    return costs;
  }
}

/** What `window.__glimpseStage` reads: the engine's parts, and its fields that change as a thunk each. */
export interface StageDebugSource {
  controller: Pick<StageController, 'refreshMs' | 'refresh' | 'size'>;
  clock: Pick<FrameClock, 'frameCount'>;
  bubble: Pick<BubbleLayer, 'drawn' | 'blurPlan'>;
  media: Pick<MediaCache, 'peek' | 'resources'>;
  renderer: Renderer;
  probes: StageProbes;
  lastRecords(): PresentationRecord[] | null;
  lastMediaRects(): Rect[];
  /** The 3D objects on screen: where each is drawn and the pose last drawn, or null. */
  objects(): { items: ReadonlyArray<{ rect: Rect }>; pose: CameraPose; frame: number } | null;
  /** The three.js layer, once created. */
  three(): ObjectRenderer | null;
}

/** The `window.__glimpseStage` object (debugHook.ts): live getters over the engine's parts. */
export function stageDebugHook(source: StageDebugSource): GlimpseStageDebug {
  const { controller, clock, bubble, media, renderer, probes } = source;
  return {
    get refreshMs() {
      return controller.refreshMs;
    },
    get refresh() {
      return controller.refresh;
    },
    get frameCount() {
      return clock.frameCount;
    },
    get lastRecords() {
      return source.lastRecords();
    },
    get lastMediaRects() {
      return source.lastMediaRects();
    },
    get drawn() {
      return bubble.drawn;
    },
    get blurPlan() {
      return bubble.blurPlan;
    },
    get objectPose() {
      const objects = source.objects();
      return objects && { ...objects.pose, frame: objects.frame };
    },
    get objectRects() {
      return source.objects()?.items.map((item) => ({ ...item.rect })) ?? [];
    },
    size: () => controller.size(),
    probe: (x, y) => probes.probe(x, y),
    probeRow: (x, y, width) => probes.probeRow(x, y, width),
    videoUpload: (name) => {
      const entry = media.peek(name);
      return entry?.clip ? entry.clip.uploadPath : entry?.video ? 'element' : null;
    },
    resources: () => {
      const three = source.three();
      // PixiJS's own hashes of what it holds on the GPU (a released resource leaves a null behind: not counted).
      type Held = { items?: Record<string, unknown> } | undefined;
      const systems = renderer as unknown as Record<'texture' | 'buffer' | 'geometry', Record<string, Held> | undefined>;
      const live = (hash: Held) => (hash?.items ? Object.values(hash.items).filter(Boolean).length : 0);
      return {
        ...media.resources(),
        players: clipResources.players,
        packets: clipResources.packets,
        packetBytes: clipResources.packetBytes,
        videoFrames: clipResources.openFrames,
        decoders: clipResources.decoders,
        pixiTextures: live(systems.texture?._managedTextures),
        pixiBuffers: live(systems.buffer?._managedBuffers),
        pixiGeometries: live(systems.geometry?._managedGeometries),
        renderTargets: three?.renderTargets ?? 0,
        threeTextures: three?.gpuMemory.textures ?? 0,
        threeGeometries: three?.gpuMemory.geometries ?? 0,
      };
    },
    measureRender: (on) => probes.measureRender(on),
  };
}
