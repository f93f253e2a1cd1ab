/**
 * Bubble bench page: mounts the real <Stage> (lazily, as the participant page does), whose bubble window follows
 * real pointer events, and exposes `window.__bubbleBench` to the pixel test
 * (src/web/stage/bubble/bubble.pixel.browser.test.ts) and to the benchmark (run.ts, through conditions.ts).
 */
import { lazy, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import type { PresentationRecord, PresentationStep, StageController, StageItem } from '../../src/web/stage/types';
import { recordVideo } from '../timing/testMedia';
import type { LoadedMedia } from '../../src/web/stage/types';
import { benchConditions } from './conditions';
import { makePhotoLike, makePixelTarget } from './testImages';

const Stage = lazy(() => import('../../src/web/stage/Stage'));

const media = new Map<string, LoadedMedia>();
const stageElement = document.getElementById('stage')!;
/** Pointer events seen: client position, timeStamp, and the stage frame count when it arrived. */
const pointerLog: Array<{ x: number; y: number; t: number; frameCount: number }> = [];

window.addEventListener('pointermove', (event) => {
  pointerLog.push({ x: event.clientX, y: event.clientY, t: event.timeStamp, frameCount: window.__glimpseStage?.frameCount ?? -1 });
});

let ready: Promise<StageController> | null = null;
/** The play that keeps a view on screen (a hold step), ended before the next one. */
let shown: Promise<unknown> = Promise.resolve();

const bench = {
  /** Mount the stage in a width x height box at the page's top-left; resolves when it is ready. */
  mount(width: number, height: number): Promise<{ refreshMs: number; size: { width: number; height: number } }> {
    stageElement.style.width = `${width}px`;
    stageElement.style.height = `${height}px`;
    ready ??= new Promise((resolve) => {
      createRoot(stageElement).render(
        <Suspense fallback={null}>
          <Stage media={(name) => media.get(name)} background="#808080" onReady={resolve} />
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
  async startPlay(steps: PresentationStep[]): Promise<void> {
    const c = await ready!;
    c.clear();
    await shown;
    bench.playing = c.play(steps);
  },
  /** Keep a bubble item on screen (until the next show, play or clear); resolves once it is drawn. */
  async show(item: StageItem): Promise<void> {
    const c = await ready!;
    c.clear();
    await shown;
    await new Promise<void>((drawn) => {
      shown = c.play([{ label: 'show', items: [item], end: { kind: 'hold' } }], { onOnset: () => drawn() }).catch(() => undefined);
    });
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
