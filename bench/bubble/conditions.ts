/**
 * The three bubble implementations of the benchmark, run in the page on the same image and pointer path:
 *   (a) ours: BubbleEngine (blur once into a texture, one mixing shader per frame), driven by a manual clock so
 *       each frame can be timed alone;
 *   (b) PixiJS BlurFilter on the image every frame, under a sharp copy masked by a circular Graphics mask;
 *   (c) CSS: an <img> with filter: blur() under a sharp <img> with clip-path: circle() moved per frame.
 * Render cost per frame = the frame's work until a 1-pixel readPixels returns (forces the GPU to finish;
 * gl.finish() does not block in Chromium). CSS has no readPixels: (c) and, for comparison, (a) and (b) are also
 * timed by the interval between requestAnimationFrame callbacks with the frame rate limit off.
 */
import { Application, BlurFilter, Graphics, ImageSource, Sprite, Texture } from 'pixi.js';
import type { WebGLRenderer } from 'pixi.js';
import { BubbleEngine } from '../../src/web/stage/bubble/bubbleEngine';
import { blurPlan } from '../../src/web/stage/bubble/blurPlan';
import { GpuGaussianBlur } from '../../src/web/stage/bubble/gpuBlur';
import type { BubbleView } from '../../src/web/stage/bubble/types';
import type { FrameScheduler } from '../../src/web/stage/frameClock';
import type { LoadedMedia } from '../../src/web/stage/types';

export interface Point {
  x: number;
  y: number;
}

export interface CostFigures {
  frames: number;
  meanMs: number;
  medianMs: number;
  p95Ms: number;
}

export interface Setup {
  width: number;
  height: number;
  image: string;
  sigma: number;
  radius: number;
}

/** Pixi's BlurFilter deviation per unit of strength for kernel 5 (pixi 8.17+, FIELD-NOTES; measured there). */
export const PIXI_SIGMA_PER_STRENGTH = 1.292;
const NO_PIXI_EVENTS = { move: false, globalMove: false, click: false, wheel: false };

export function figures(samples: number[]): CostFigures {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return {
    frames: samples.length,
    meanMs: samples.reduce((a, b) => a + b, 0) / samples.length,
    medianMs: at(0.5),
    p95Ms: at(0.95),
  };
}

function syncGpu(gl: WebGL2RenderingContext, pixel: Uint8Array): void {
  gl.bindFramebuffer(gl.FRAMEBUFFER, null);
  gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
}

function host(id: string, width: number, height: number): HTMLElement {
  const el = document.getElementById(id)!;
  Object.assign(el.style, { display: 'block', width: `${width}px`, height: `${height}px` });
  return el;
}

async function pixiApp(parent: HTMLElement, width: number, height: number): Promise<Application> {
  const app = new Application();
  await app.init({ preference: 'webgl', autoStart: false, sharedTicker: false, width, height, resolution: 1, antialias: false, background: '#808080', eventFeatures: NO_PIXI_EVENTS });
  parent.append(app.canvas);
  return app;
}

const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
const nextFrame = () => new Promise<number>((resolve) => requestAnimationFrame(resolve));

/** Time `frames` rAF intervals while `step(i)` moves the window before each frame. */
async function rafIntervals(frames: number, step: (i: number) => void): Promise<CostFigures> {
  let last = await nextFrame();
  const intervals: number[] = [];
  for (let i = 0; i < frames; i++) {
    step(i);
    const now = await nextFrame();
    intervals.push(now - last);
    last = now;
  }
  return figures(intervals);
}

/** (a): our engine on a manual clock, so one frame's work can be timed on its own. */
async function ours(media: Map<string, LoadedMedia>, setup: Setup) {
  const parent = host('pixi', setup.width, setup.height);
  const app = await pixiApp(parent, setup.width, setup.height);
  let pending: ((t: number) => void) | null = null;
  const scheduler: FrameScheduler = { request: (cb) => ((pending = cb), 1), cancel: () => void (pending = null) };
  let pointer: Point = { x: setup.width / 2, y: setup.height / 2 };
  const engine = new BubbleEngine({ app, host: parent, lookup: (n) => media.get(n), background: '#808080', pointer: () => pointer, scheduler });
  let clock = 0;
  const tick = (t = (clock += 1000 / 60)) => {
    const cb = pending;
    pending = null;
    cb?.(t);
  };
  const until = async <T,>(promise: Promise<T>): Promise<T> => {
    let done = false;
    void promise.finally(() => (done = true));
    while (!done) {
      tick();
      await nextTask();
    }
    return promise;
  };
  await until(engine.start());
  const view: BubbleView = { media: setup.image, rect: { x: 0, y: 0, width: setup.width, height: setup.height }, sigma: setup.sigma, radius: setup.radius };
  await until(engine.show(view));
  const gl = (app.renderer as WebGLRenderer).gl as WebGL2RenderingContext;
  return {
    app,
    gl,
    engine,
    setPointer: (p: Point) => (pointer = p),
    tick,
    destroy() {
      engine.destroy();
      app.destroy(true, true);
      parent.style.display = 'none';
    },
  };
}

/** (b): BlurFilter every frame + circular Graphics (stencil) mask on a sharp copy. */
async function pixiBlurFilter(media: Map<string, LoadedMedia>, setup: Setup) {
  const parent = host('pixi', setup.width, setup.height);
  const app = await pixiApp(parent, setup.width, setup.height);
  const bitmap = await createImageBitmap(media.get(setup.image)!.blob);
  const texture = new Texture({ source: new ImageSource({ resource: bitmap }) });
  const blurred = new Sprite(texture);
  blurred.setSize(setup.width, setup.height);
  blurred.filters = [new BlurFilter({ strength: setup.sigma / PIXI_SIGMA_PER_STRENGTH, quality: 4, kernelSize: 5 })];
  const sharp = new Sprite(texture);
  sharp.setSize(setup.width, setup.height);
  const mask = new Graphics().circle(0, 0, setup.radius).fill(0xffffff);
  sharp.mask = mask;
  app.stage.addChild(blurred, sharp, mask);
  app.render();
  const gl = (app.renderer as WebGLRenderer).gl as WebGL2RenderingContext;
  return {
    app,
    gl,
    setPointer: (p: Point) => mask.position.set(p.x, p.y),
    render: () => app.render(),
    destroy() {
      app.destroy(true, true);
      bitmap.close();
      parent.style.display = 'none';
    },
  };
}

/** (c): CSS filter blur under a clip-path circle sharp copy. */
function css(media: Map<string, LoadedMedia>, setup: Setup) {
  const parent = host('css', setup.width, setup.height);
  const url = media.get(setup.image)!.url;
  parent.innerHTML = '';
  const blurred = document.createElement('img');
  blurred.src = url;
  blurred.style.filter = `blur(${setup.sigma}px)`;
  const sharp = document.createElement('img');
  sharp.src = url;
  parent.append(blurred, sharp);
  const setPointer = (p: Point) => (sharp.style.clipPath = `circle(${setup.radius}px at ${p.x}px ${p.y}px)`);
  return {
    ready: Promise.all([blurred.decode(), sharp.decode()]),
    setPointer,
    destroy() {
      parent.innerHTML = '';
      parent.style.display = 'none';
    },
  };
}

export function benchConditions(media: Map<string, LoadedMedia>) {
  return {
    /** (a): readPixels-synced cost of each frame while the window follows `path`, plus rAF intervals. */
    async costOurs(setup: Setup, path: Point[]) {
      const run = await ours(media, setup);
      const pixel = new Uint8Array(4);
      const samples: number[] = [];
      for (const p of path) {
        run.setPointer(p);
        const t0 = performance.now();
        run.tick();
        syncGpu(run.gl, pixel);
        samples.push(performance.now() - t0);
      }
      const raf = await rafIntervals(path.length, (i) => {
        run.setPointer(path[i]);
        run.tick();
      });
      run.destroy();
      return { cost: figures(samples), raf };
    },
    /** (b): the same for BlurFilter + mask. */
    async costPixiFilter(setup: Setup, path: Point[]) {
      const run = await pixiBlurFilter(media, setup);
      const pixel = new Uint8Array(4);
      const samples: number[] = [];
      for (const p of path) {
        run.setPointer(p);
        const t0 = performance.now();
        run.render();
        syncGpu(run.gl, pixel);
        samples.push(performance.now() - t0);
      }
      const raf = await rafIntervals(path.length, (i) => {
        run.setPointer(path[i]);
        run.render();
      });
      run.destroy();
      return { cost: figures(samples), raf };
    },
    /** (c): rAF intervals of the CSS version (no readPixels possible). */
    async costCss(setup: Setup, path: Point[]) {
      const run = css(media, setup);
      await run.ready;
      await rafIntervals(10, (i) => run.setPointer(path[i % path.length]));
      const raf = await rafIntervals(path.length, (i) => run.setPointer(path[i]));
      run.destroy();
      return { raf };
    },
    /** One blur (both passes) of the image at `sigma`, readPixels-synced, `runs` times: the per-video-frame cost. */
    async costBlurPasses(setup: Setup, runs: number) {
      const parent = host('pixi', setup.width, setup.height);
      const app = await pixiApp(parent, setup.width, setup.height);
      const bitmap = await createImageBitmap(media.get(setup.image)!.blob);
      const source = new ImageSource({ resource: bitmap });
      const plan = blurPlan(bitmap.width, bitmap.height, (setup.sigma * bitmap.width) / setup.width);
      const blur = new GpuGaussianBlur(app.renderer);
      const gl = (app.renderer as WebGLRenderer).gl as WebGL2RenderingContext;
      const pixel = new Uint8Array(4);
      blur.run(source, plan);
      syncGpu(gl, pixel);
      const samples: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        blur.run(source, plan);
        syncGpu(gl, pixel);
        samples.push(performance.now() - t0);
      }
      blur.destroy();
      app.destroy(true, true);
      bitmap.close();
      parent.style.display = 'none';
      return { cost: figures(samples), plan: { factor: plan.factor, passSigma: plan.passSigma, taps: plan.taps, width: plan.width, height: plan.height } };
    },
  };
}
