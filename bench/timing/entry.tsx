/**
 * Bench page: mounts the real <Stage> (lazy, as the flow does) and exposes `window.__bench` to the Playwright
 * driver in run.ts. Also used by the stage's browser smoke check.
 */
import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import type { LoadedMedia, PresentationRecord, PresentationStep, StageController } from '../../src/web/stage/types';
import { runBaseline, runStage } from './conditions';
import type { BaselineRun, LongTaskPlan, StageRun } from './conditions';
import { makeImages, makeSolid, mediaFromBase64, recordVideo } from './testMedia';
import { measureRefreshMs } from '../../src/web/screens/eligibility/refreshRate';
import { runVideoElement, runVideoStage } from './videoConditions';
import type { VideoPlay } from './videoConditions';

const Stage = lazy(() => import('../../src/web/stage/Stage'));

const media = new Map<string, LoadedMedia>();
let controller: StageController | null = null;
let resolveReady: (c: StageController) => void = () => {};
const ready = new Promise<StageController>((resolve) => {
  resolveReady = resolve;
});

/** `?video=element`, `?video=frames` or `?video=pixels` picks the Stage's video path (comparisons); anything else is 'auto'. */
function videoPathParam(value: string | null): 'auto' | 'pixels' | 'frames' | 'element' {
  return value === 'element' || value === 'frames' || value === 'pixels' ? value : 'auto';
}

function element(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} missing`);
  return el;
}

createRoot(element('stage')).render(
  <StrictMode>
    <Suspense fallback={null}>
      <Stage
        media={(name) => media.get(name)}
        background="#808080"
        videoPath={videoPathParam(new URLSearchParams(location.search).get('video'))}
        onReady={(c) => {
          controller = c;
          resolveReady(c);
        }}
      />
    </Suspense>
  </StrictMode>,
);

function add(list: LoadedMedia[]): string[] {
  list.forEach((m) => media.set(m.name, m));
  return list.map((m) => m.name);
}

function images(names: string[]): LoadedMedia[] {
  return names.map((name) => {
    const m = media.get(name);
    if (!m) throw new Error(`no media ${name}`);
    return m;
  });
}

const bench = {
  async ready(): Promise<{ refreshMs: number; size: { width: number; height: number } }> {
    const c = await ready;
    return { refreshMs: c.refreshMs, size: c.size() };
  },
  async makeImages(count: number, width: number, height: number, prefix: string): Promise<string[]> {
    return add(await makeImages(count, width, height, prefix));
  },
  async makeSolid(name: string, width: number, height: number, color: string): Promise<string> {
    return add([await makeSolid(name, width, height, color)])[0];
  },
  async recordVideo(name: string, width: number, height: number, colors: string[], segmentMs: number): Promise<string> {
    return add([await recordVideo(name, width, height, colors, segmentMs)])[0];
  },
  addBase64(name: string, kind: 'image' | 'video', mime: string, base64: string): string {
    return add([mediaFromBase64(name, kind, mime, base64)])[0];
  },
  async prepare(names: string[]): Promise<Array<{ width: number; height: number }>> {
    const c = await ready;
    await c.prepare(names);
    return names.map((n) => c.mediaSize(n));
  },
  /** Start a play() and keep its promise: the smoke check probes pixels while it runs. */
  playing: null as Promise<PresentationRecord[] | { error: string; name: string; records: PresentationRecord[] }> | null,
  async startPlay(steps: PresentationStep[]): Promise<void> {
    const c = await ready;
    // A failed or interrupted play keeps the records of what it drew (StageMediaError, StageInterruptedError).
    bench.playing = c.play(steps).catch((e: Error & { records?: PresentationRecord[] }) => ({ error: e.message, name: e.name, records: e.records ?? [] }));
  },
  async runStage(names: string[], ms: number, plans: LongTaskPlan[]): Promise<StageRun> {
    return runStage(await ready, images(names), ms, plans);
  },
  async runBaseline(names: string[], ms: number): Promise<BaselineRun> {
    const c = await ready;
    return runBaseline(element('baseline'), images(names), ms, c.refreshMs);
  },
  /** The eligibility screen's refresh measurement (its minimum-rate check), on this page's frames. */
  measureRefreshMs(): Promise<number | null> {
    return measureRefreshMs(window);
  },
  async runVideoStage(name: string, plays: number): Promise<VideoPlay[]> {
    return runVideoStage(await ready, images([name])[0], plays);
  },
  async runVideoElement(name: string, plays: number, frameTimes: number[]): Promise<VideoPlay[]> {
    const c = await ready;
    return runVideoElement(element('baseline'), images([name])[0], plays, c.refreshMs, frameTimes);
  },
  get controller() {
    return controller;
  },
};

declare global {
  interface Window {
    __bench: typeof bench;
  }
}
window.__bench = bench;
