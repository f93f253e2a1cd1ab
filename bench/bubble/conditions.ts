/**
 * The three bubble implementations of the benchmark, run in the page on the same image and pointer path:
 *   (a) ours: the StageEngine's bubble item (blur once into a texture, one mixing shader per frame), driven by a manual clock so
 *       each frame can be timed alone;
 *   (b) PixiJS BlurFilter on the image every frame, under a sharp copy masked by a circular Graphics mask;
 *   (c) CSS: an <img> with filter: blur() under a sharp <img> with clip-path: circle() moved per frame.
 * Render cost per frame = the frame's work until a 1-pixel readPixels returns (forces the GPU to finish;
 * gl.finish() does not block in Chromium). CSS has no readPixels: all three are also timed to the screen by the
 * node side (run.ts), which applies a pointer position (`step`) and then waits for a composited frame (a 1-pixel
 * CDP screenshot), so the browser's raster and compositing are counted for every method alike.
 */
import { Application, BlurFilter, Container, Graphics, ImageSource, Sprite, Texture } from 'pixi.js';
import type { WebGLRenderer } from 'pixi.js';
import { blurPlan } from '../../src/web/stage/bubble/blurPlan';
import { GpuGaussianBlur } from '../../src/web/stage/bubble/gpuBlur';
import type { FrameScheduler } from '../../src/web/stage/frameClock';
import { StageEngine } from '../../src/web/stage/stageEngine';
import type { LoadedMedia, StageItem } from '../../src/web/stage/types';
import { figures } from './figures';
import type { CostFigures, Point, Setup } from './figures';

export type { CostFigures, Point, Setup };

/** Pixi's BlurFilter deviation per unit of strength for kernel 5 (pixi 8.17+, FIELD-NOTES; measured there). */
export const PIXI_SIGMA_PER_STRENGTH = 1.292;
const NO_PIXI_EVENTS = { move: false, globalMove: false, click: false, wheel: false };

function syncGpu(gl: WebGL2RenderingContext, pixel: Uint8Array): void {
  gl.bindFramebuffer(gl.FRAMEBUFFER, null);
  gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
}

function host(id: string, width: number, height: number): HTMLElement {
  const el = document.getElementById(id)!;
  Object.assign(el.style, { display: 'block', width: `${width}px`, height: `${height}px` });
  return el;
}

/** `preserveDrawingBuffer` as <Stage> creates it for (a); Pixi's default (false) for (b). */
async function pixiApp(parent: HTMLElement, width: number, height: number, preserveDrawingBuffer = false): Promise<Application> {
  const app = new Application();
  await app.init({ preference: 'webgl', autoStart: false, sharedTicker: false, width, height, resolution: 1, antialias: false, background: '#808080', eventFeatures: NO_PIXI_EVENTS, preserveDrawingBuffer });
  parent.append(app.canvas);
  return app;
}

const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
/** (a): our engine on a manual clock, so one frame's work can be timed on its own. */
async function ours(media: Map<string, LoadedMedia>, setup: Setup) {
  const parent = host('pixi', setup.width, setup.height);
  const app = await pixiApp(parent, setup.width, setup.height, true);
  let pending: ((t: number) => void) | null = null;
  const scheduler: FrameScheduler = { request: (cb) => ((pending = cb), 1), cancel: () => void (pending = null) };
  let pointer: Point = { x: setup.width / 2, y: setup.height / 2 };
  const root = new Container();
  app.stage.addChild(root);
  const engine = new StageEngine({ app, root, host: parent, lookup: (n) => media.get(n), background: '#808080', pointer: () => pointer, scheduler });
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
  // A view stays on screen as a 'hold' step until the next one is shown (the previous play ended first).
  let holding: Promise<unknown> = Promise.resolve();
  const show = async (item: StageItem) => {
    engine.clear();
    await until(holding);
    let drawn = () => {};
    const onset = new Promise<void>((resolve) => (drawn = resolve));
    // The hold ends with the next clear or with destroy() (which rejects it): either is the expected end.
    holding = engine.play([{ label: 'view', items: [item], end: { kind: 'hold' } }], { onOnset: () => drawn() }).catch(() => undefined);
    await until(onset);
  };
  const view: StageItem = { media: setup.image, rect: { x: 0, y: 0, width: setup.width, height: setup.height }, bubble: { sigma: setup.sigma, radius: setup.radius } };
  await show(view);
  const gl = (app.renderer as WebGLRenderer).gl as WebGL2RenderingContext;
  return {
    app,
    gl,
    engine,
    view,
    show,
    until,
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

/**
 * Pointer-to-frame latency of (b) or (c) driven the way (a) is: one rAF loop that applies the latest pointer
 * sample (from pointermove, coalesced samples included) and renders; each event notes the frame count when it
 * arrived, each frame the position it drew. Frames between = first frame drawing the event's position - that count.
 */
function latencyHarness(apply: (p: Point) => void, render: () => void) {
  let frame = 0;
  let latest: Point | null = null;
  let drawn: Point | null = null;
  let running = true;
  const events: Array<Point & { frame: number }> = [];
  const frames: Array<Point & { frame: number }> = [];
  const onMove = (event: PointerEvent) => {
    const samples = event.getCoalescedEvents?.() ?? [];
    for (const e of samples.length > 0 ? samples : [event]) latest = { x: e.clientX, y: e.clientY };
    events.push({ x: event.clientX, y: event.clientY, frame });
  };
  window.addEventListener('pointermove', onMove);
  const loop = () => {
    if (!running) return;
    frame += 1;
    if (latest && (!drawn || drawn.x !== latest.x || drawn.y !== latest.y)) {
      apply(latest);
      drawn = latest;
      frames.push({ ...latest, frame });
    }
    render();
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  return {
    stop(): number[] {
      running = false;
      window.removeEventListener('pointermove', onMove);
      return events.flatMap((e) => {
        const shown = frames.find((f) => f.frame > e.frame && f.x === e.x && f.y === e.y);
        return shown ? [shown.frame - e.frame] : [];
      });
    },
  };
}

type Kind = 'ours' | 'pixi-filter' | 'css';

/** One method behind one interface: place the window, draw, optionally wait for the GPU. */
interface Harness {
  setPointer(p: Point): void;
  /** Draw a frame now (CSS: nothing; the browser draws it). */
  render(): void;
  /** WebGL context to sync on, null for CSS. */
  gl: WebGL2RenderingContext | null;
  destroy(): void;
}

async function harnessOf(media: Map<string, LoadedMedia>, kind: Kind, setup: Setup): Promise<Harness> {
  if (kind === 'ours') {
    const run = await ours(media, setup);
    return { setPointer: run.setPointer, render: () => run.tick(), gl: run.gl, destroy: run.destroy };
  }
  if (kind === 'pixi-filter') {
    const run = await pixiBlurFilter(media, setup);
    return { setPointer: run.setPointer, render: run.render, gl: run.gl, destroy: run.destroy };
  }
  const run = css(media, setup);
  await run.ready;
  return { setPointer: run.setPointer, render: () => {}, gl: null, destroy: run.destroy };
}

export function benchConditions(media: Map<string, LoadedMedia>) {
  let harness: { stop(): number[]; destroy(): void } | null = null;
  let current: Harness | null = null;
  return {
    /** Set up one method at the page's top-left (the node side then calls step / costFrames, then stop). */
    async start(kind: Kind, setup: Setup): Promise<void> {
      current?.destroy();
      current = await harnessOf(media, kind, setup);
    },
    /** Place the window and draw (no GPU wait): the node side times this plus a composited frame. */
    step(p: Point): void {
      current!.setPointer(p);
      current!.render();
    },
    stop(): void {
      current?.destroy();
      current = null;
    },
    /** (a), (b): readPixels-synced cost of each frame while the window follows `path`. */
    costFrames(path: Point[]): CostFigures {
      const run = current!;
      const pixel = new Uint8Array(4);
      syncGpu(run.gl!, pixel);
      const samples: number[] = [];
      for (const p of path) {
        const t0 = performance.now();
        run.setPointer(p);
        run.render();
        syncGpu(run.gl!, pixel);
        samples.push(performance.now() - t0);
      }
      return figures(samples);
    },
    /**
     * (a) at several deviations, interleaved in blocks of `blockFrames` window moves (ABBA... order, so load from
     * elsewhere on the machine and any cost of coming first hit each alike). Before a block its view is shown
     * (untimed; the blurred copy is cached); the block's moves are timed together, one readPixels at the end.
     * Figures are per frame (block time / blockFrames), one sample per block. `whole`: every frame redraws the whole
     * media (as after a new step or a new video frame) instead of only the region the window move changed.
     */
    async costOursSigmas(setup: Setup, sigmas: number[], path: Point[], blockFrames = 10, whole = false): Promise<Record<string, CostFigures>> {
      const run = await ours(media, setup);
      const views = sigmas.map((sigma) => ({ ...run.view, bubble: { ...run.view.bubble!, sigma } }));
      await run.until(run.engine.prepare(views));
      const pixel = new Uint8Array(4);
      const samples: number[][] = sigmas.map(() => []);
      const blocks = Math.max(2, Math.floor(path.length / blockFrames));
      for (let k = 0; k < blocks; k++) {
        const order = views.map((_, i) => i);
        if (k % 2 === 1) order.reverse();
        for (const i of order) {
          await run.show(views[i]!);
          syncGpu(run.gl, pixel);
          const t0 = performance.now();
          for (let f = 0; f < blockFrames; f++) {
            const p = path[(k * blockFrames + f) % path.length]!;
            // A position this view has not drawn yet, so every timed frame does move the window.
            run.setPointer({ x: p.x + i, y: p.y });
            // A background change marks the stage dirty: the next frame draws everything.
            if (whole) run.engine.setBackground('#808080');
            run.tick();
          }
          syncGpu(run.gl, pixel);
          samples[i]!.push((performance.now() - t0) / blockFrames);
        }
      }
      run.destroy();
      return Object.fromEntries(sigmas.map((sigma, i) => [String(sigma), figures(samples[i]!)]));
    },
    /** Both gaussian passes on one frame at each deviation (a new video frame's cost), interleaved, readPixels-synced. */
    async costBlurPasses(setup: Setup, sigmas: number[], runs: number) {
      const parent = host('pixi', setup.width, setup.height);
      const app = await pixiApp(parent, setup.width, setup.height);
      const bitmap = await createImageBitmap(media.get(setup.image)!.blob);
      const source = new ImageSource({ resource: bitmap });
      const plans = sigmas.map((sigma) => blurPlan(bitmap.width, bitmap.height, (sigma * bitmap.width) / setup.width));
      const blurs = plans.map(() => new GpuGaussianBlur(app.renderer));
      const gl = (app.renderer as WebGLRenderer).gl as WebGL2RenderingContext;
      const pixel = new Uint8Array(4);
      blurs.forEach((blur, i) => blur.run(source, plans[i]!));
      syncGpu(gl, pixel);
      const samples: number[][] = sigmas.map(() => []);
      for (let r = 0; r < runs; r++) {
        blurs.forEach((blur, i) => {
          const t0 = performance.now();
          blur.run(source, plans[i]!);
          syncGpu(gl, pixel);
          samples[i]!.push(performance.now() - t0);
        });
      }
      blurs.forEach((blur) => blur.destroy());
      app.destroy(true, true);
      bitmap.close();
      parent.style.display = 'none';
      return sigmas.map((sigma, i) => ({
        sigma,
        cost: figures(samples[i]!),
        plan: { factor: plans[i]!.factor, passSigma: plans[i]!.passSigma, taps: plans[i]!.taps, width: plans[i]!.width, height: plans[i]!.height },
      }));
    },
    /** Start the (b) or (c) latency harness at the page's top-left; node then moves the real mouse. */
    async startLatency(kind: 'pixi-filter' | 'css', setup: Setup): Promise<void> {
      if (kind === 'pixi-filter') {
        const run = await pixiBlurFilter(media, setup);
        const h = latencyHarness(run.setPointer, run.render);
        harness = { stop: h.stop, destroy: run.destroy };
      } else {
        const run = css(media, setup);
        await run.ready;
        const h = latencyHarness(run.setPointer, () => {});
        harness = { stop: h.stop, destroy: run.destroy };
      }
    },
    stopLatency(): number[] {
      const frames = harness?.stop() ?? [];
      harness?.destroy();
      harness = null;
      return frames;
    },
    /** WebGL renderer string (SwiftShader or a real GPU). */
    renderer(): string {
      const gl = document.createElement('canvas').getContext('webgl2');
      if (!gl) return 'no WebGL2';
      const info = gl.getExtension('WEBGL_debug_renderer_info');
      return String(info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER));
    },
  };
}
