/**
 * 3D bench page: mounts the real <Stage> (lazy, as the flow does) and exposes `window.__bench3d` to the 3D display
 * test (src/web/stage/objects/objects.display.test.ts) and to bench/3d/run.ts. Media come from the Node side as
 * base64 (models with their side files) or are drawn in the page (images).
 */
import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import type { CameraPoseSample, LoadedMedia, PresentationRecord, PresentationStep, StageController } from '../../src/web/stage/types';
import { makeImages } from '../timing/testMedia';

const Stage = lazy(() => import('../../src/web/stage/Stage'));

const media = new Map<string, LoadedMedia>();
let resolveReady: (c: StageController) => void = () => {};
const ready = new Promise<StageController>((resolve) => {
  resolveReady = resolve;
});

createRoot(document.getElementById('stage')!).render(
  <StrictMode>
    <Suspense fallback={null}>
      <Stage media={(name) => media.get(name)} background="#808080" onReady={(c) => resolveReady(c)} />
    </Suspense>
  </StrictMode>,
);

const fromBase64 = (base64: string, mime: string) => new Blob([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], { type: mime });

/** One frame's camera pose as the stage reported it (onCameraPose). */
type PoseSample = CameraPoseSample;

const bench3d = {
  async ready(): Promise<{ refreshMs: number; size: { width: number; height: number } }> {
    const c = await ready;
    return { refreshMs: c.refreshMs, size: c.size() };
  },
  addModel(name: string, mime: string, base64: string, files: Record<string, string> = {}): string {
    const blob = fromBase64(base64, mime);
    const sideFiles = new Map(Object.entries(files).map(([uri, data]) => [uri, fromBase64(data, 'application/octet-stream')]));
    media.set(name, { name, kind: 'model', mime, blob, url: URL.createObjectURL(blob), files: sideFiles });
    return name;
  },
  addImage(name: string, mime: string, base64: string): string {
    const blob = fromBase64(base64, mime);
    media.set(name, { name, kind: 'image', mime, blob, url: URL.createObjectURL(blob) });
    return name;
  },
  async makeImages(count: number, width: number, height: number, prefix: string): Promise<string[]> {
    const list = await makeImages(count, width, height, prefix);
    list.forEach((m) => media.set(m.name, m));
    return list.map((m) => m.name);
  },
  /** Prepare (parse and upload) media: their sizes, or the error's message. */
  async prepare(names: string[]): Promise<Array<{ width: number; height: number }> | { error: string; name: string }> {
    const c = await ready;
    try {
      await c.prepare(names);
      return names.map((n) => c.mediaSize(n));
    } catch (error) {
      return { error: (error as Error).message, name: (error as Error).name };
    }
  },
  /** Start a play() and keep its promise; every camera pose drawn goes into `poses`. */
  playing: null as Promise<PresentationRecord[] | { error: string; name: string }> | null,
  poses: [] as PoseSample[],
  async startPlay(steps: PresentationStep[]): Promise<void> {
    const c = await ready;
    bench3d.poses = [];
    bench3d.playing = c.play(steps, { onCameraPose: (p) => bench3d.poses.push(p) }).catch((e: Error) => ({ error: e.message, name: e.name }));
  },
  async release(): Promise<PresentationRecord[] | { error: string; name: string }> {
    const c = await ready;
    c.release();
    return bench3d.playing!;
  },
  /** The WebGL renderer string (a GPU run must not report SwiftShader figures). */
  renderer(): string {
    const gl = document.createElement('canvas').getContext('webgl2');
    if (!gl) return 'no webgl2';
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    return String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
  },
  /** Frames seen by the stage clock. */
  get frameCount(): number {
    return window.__glimpseStage?.frameCount ?? 0;
  },
};

declare global {
  interface Window {
    __bench3d: typeof bench3d;
  }
}
window.__bench3d = bench3d;
