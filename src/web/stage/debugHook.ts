/**
 * `window.__glimpseStage`: a read-only probe of the stage for e2e tests, pixel tests and benchmarks (documented in
 * README.md). Installed by the mounted engine once its refresh is measured, removed when it unmounts.
 */
import type { BlurPlan } from './bubble/blurPlan';
import type { DrawnWindow } from './bubble/bubbleLayer';
import type { PresentationRecord, Rect, RefreshInfo } from './types';
import type { CameraPose } from './objects/objectPose';

export type Rgba = [number, number, number, number];

/** What the stage holds now (leak checks, issue 36): back to the idle counts once the media are released. */
export interface StageResources {
  /** Media prepared (the media cache), the stage-clock clips among them and the decoded bytes they hold. */
  prepared: number;
  clips: number;
  clipBytes: number;
  /** Clip players not released, and the encoded packets (count, bytes) they keep. */
  players: number;
  packets: number;
  packetBytes: number;
  /** VideoFrames from the clips' decoders (and their clones) not closed. */
  videoFrames: number;
  /** The clips' VideoDecoders not closed. */
  decoders: number;
  /** What PixiJS holds on the GPU: texture sources (images, clips' textures and planes, render textures), buffers and
   * geometries (the clips' conversion quads, the bubble's meshes). */
  pixiTextures: number;
  pixiBuffers: number;
  pixiGeometries: number;
  /** 3D: three.js render targets kept (one per item size drawn now, and the upload's), and its GPU textures and
   * geometries; zeros before the first model. */
  renderTargets: number;
  threeTextures: number;
  threeGeometries: number;
}

export interface GlimpseStageDebug {
  /** Measured refresh period, ms. */
  readonly refreshMs: number;
  /** The fit behind it: period, standard error, intervals fitted, changes of rate. */
  readonly refresh: RefreshInfo | null;
  /** Frames seen by the stage clock since it started. */
  readonly frameCount: number;
  /** Canvas size in CSS px. */
  size(): { width: number; height: number };
  /** Colour of the canvas pixel at CSS px (x, y) from the top-left, read right after the next clock frame. */
  probe(x: number, y: number): Promise<Rgba>;
  /**
   * RGBA bytes of a run of one canvas row from CSS px (x, y), `width` CSS px long (device pixels), read right after
   * the next clock frame with one readPixels: a watcher reading many points pays one GPU wait per frame.
   */
  probeRow(x: number, y: number, width: number): Promise<Uint8Array>;
  /**
   * How a prepared video reaches the screen: 'planes' (stage clock, planes copied ahead and converted by the stage),
   * 'pixels' (stage clock, RGBA bytes the browser converted), 'frames' (stage clock, the VideoFrame uploaded),
   * 'element' (the <video> element); null when not prepared or not a video.
   */
  videoUpload(media: string): 'planes' | 'pixels' | 'frames' | 'element' | null;
  /** Records of the last finished play(), or null. */
  readonly lastRecords: PresentationRecord[] | null;
  /** Where the last step that showed media drew them (canvas CSS px): layout checks compare them with the page. */
  readonly lastMediaRects: Rect[];
  /** Bubble: the last window position drawn (null while no bubble item is shown or the pointer is unknown). */
  readonly drawn: DrawnWindow | null;
  /** Bubble: the blur plan of the media on screen (factor, deviation per pass...). */
  readonly blurPlan: BlurPlan | null;
  /**
   * Benchmarks: `measureRender(true)` makes every clock frame render in full and wait for the GPU (a 1-pixel read),
   * noting each frame's render cost (ms); `measureRender(false)` stops and returns the costs noted.
   */
  measureRender(on: boolean): number[];
  /** 3D: the camera pose of the objects on screen as last drawn, with the refreshes since their onset; else null. */
  readonly objectPose: (CameraPose & { frame: number }) | null;
  /** 3D: where the objects on screen are drawn now (canvas CSS px); empty when none is (a turntable has ended). */
  readonly objectRects: Rect[];
  /** Leak checks: what the stage holds now (frames, decoders, packets, textures, render targets). */
  resources(): StageResources;
}

declare global {
  interface Window {
    __glimpseStage?: GlimpseStageDebug;
  }
}

/** Sets `window.__glimpseStage`; the returned function removes it unless another engine has replaced it since. */
export function installDebugHook(hook: GlimpseStageDebug): () => void {
  window.__glimpseStage = hook;
  return () => {
    if (window.__glimpseStage === hook) delete window.__glimpseStage;
  };
}
