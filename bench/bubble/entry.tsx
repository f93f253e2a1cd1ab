/**
 * Bubble bench page: mounts the real <BubbleStage> (lazily, as the bubble page does) with the pointer taken from
 * real pointer events (coalesced samples, as the page does), and exposes `window.__bubbleBench` to the pixel test
 * (src/web/stage/bubble/bubble.pixel.browser.test.ts) and to the benchmark (run.ts, through conditions.ts).
 */
import { lazy, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import type { BubbleStageController, BubbleStep, BubbleView } from '../../src/web/stage/bubble/types';
import type { PresentationRecord } from '../../src/web/stage/types';
import { recordVideo } from '../timing/testMedia';
import type { LoadedMedia } from '../../src/web/stage/types';
import { benchConditions } from './conditions';
import { makePhotoLike, makePixelTarget } from './testImages';

const BubbleStage = lazy(() => import('../../src/web/stage/bubble/BubbleStage'));

const media = new Map<string, LoadedMedia>();
const stageElement = document.getElementById('stage')!;
/** Latest pointer sample, client px. */
let latest: { x: number; y: number } | null = null;
/** Pointer events seen: client position, timeStamp, and the stage frame count when it arrived. */
const pointerLog: Array<{ x: number; y: number; t: number; frameCount: number }> = [];

window.addEventListener('pointermove', (event) => {
  const samples = event.getCoalescedEvents?.() ?? [];
  for (const e of samples.length > 0 ? samples : [event]) latest = { x: e.clientX, y: e.clientY };
  pointerLog.push({ x: event.clientX, y: event.clientY, t: event.timeStamp, frameCount: window.__glimpseBubble?.frameCount ?? -1 });
});

function pointerOnCanvas(): { x: number; y: number } | null {
  if (!latest) return null;
  const rect = stageElement.getBoundingClientRect();
  return { x: latest.x - rect.left, y: latest.y - rect.top };
}

let ready: Promise<BubbleStageController> | null = null;

const bench = {
  /** Mount the stage in a width x height box at the page's top-left; resolves when it is ready. */
  mount(width: number, height: number): Promise<{ refreshMs: number; size: { width: number; height: number } }> {
    stageElement.style.width = `${width}px`;
    stageElement.style.height = `${height}px`;
    ready ??= new Promise((resolve) => {
      createRoot(stageElement).render(
        <Suspense fallback={null}>
          <BubbleStage media={(name) => media.get(name)} background="#808080" pointer={pointerOnCanvas} onReady={resolve} />
        </Suspense>,
      );
    });
    return ready.then((c) => ({ refreshMs: c.refreshMs, size: c.size() }));
  },
  async makePixelTarget(name: string, width: number, height: number): Promise<string> {
    media.set(name, await makePixelTarget(name, width, height));
    return name;
  },
  async makePhotoLike(name: string, width: number, height: number): Promise<string> {
    media.set(name, await makePhotoLike(name, width, height));
    return name;
  },
  /** A WebM recorded in the page, one solid colour per segment. */
  async recordVideo(name: string, width: number, height: number, colors: string[], segmentMs: number): Promise<string> {
    media.set(name, await recordVideo(name, width, height, colors, segmentMs));
    return name;
  },
  /** Start a play() and keep its promise (tests probe pixels while it runs). */
  playing: null as Promise<PresentationRecord[]> | null,
  async startPlay(steps: BubbleStep[]): Promise<void> {
    const c = await ready!;
    bench.playing = c.play(steps);
  },
  async show(view: BubbleView): Promise<void> {
    const c = await ready!;
    await c.show(view);
  },
  async clear(): Promise<void> {
    (await ready!).clear();
  },
  pointerLog,
  media,
  ...benchConditions(media),
};

declare global {
  interface Window {
    __bubbleBench: typeof bench;
  }
}
window.__bubbleBench = bench;
