/**
 * `npm run bench:bubble [-- --quick] [-- --gpu]`: cost of the bubble stimulus per frame in headless Chromium, for
 * (a) this implementation, (b) PixiJS BlurFilter every frame with a circular mask, (c) CSS filter: blur() under a
 * clip-path: circle() sharp copy; same image, same pointer path, at 1920x1080 and 640x360 (with --gpu also
 * 3840x2160). Plus (a) at deviations 4 and 32, the per-video-frame blur cost at 4 and 32, and the frames between a
 * pointer event and the first frame drawing the window there. Writes bench/results/bubble.json and prints a table.
 * Default graphics: SwiftShader (CPU); --gpu launches Chromium on the machine's GPU instead.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { gpuMachine, isSoftwareRenderer, openBenchPage, resultsDir } from '../timing/benchPage';
import { figures } from './figures';
import type { CostFigures, Point, Setup } from './figures';
import { writeBenchResult } from '../shared/run-stamp';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const gpu = process.argv.includes('--gpu');
/** --gpu --dry-run: the GPU code path on a software renderer at 640x360 only, to check it; never GPU figures. */
const dryRun = gpu && process.argv.includes('--dry-run');
const FRAMES = quick ? 12 : 60;
const SIGMA = 16;
const SIZES: Array<[number, number]> = dryRun ? [[640, 360]] : gpu ? [[3840, 2160], [1920, 1080], [640, 360]] : [[1920, 1080], [640, 360]];
const IMAGE = { width: 1920, height: 1080 };
/** --gpu: the deviation sweep (each against the same run's PixiJS BlurFilter + mask at that deviation). */
const GPU_SIGMAS = [4, 8, 16, 32];
const LATENCY_MOVES = quick ? 8 : 30;
/** Differences of medians of a composited frame below this are noise on this machine (2 shared cores). */
const NOISE_FLOOR_MS = 1;

/** The same pointer path at every size: a Lissajous figure over the middle 80 % of the media. */
function pointerPath(width: number, height: number, frames: number): Point[] {
  return Array.from({ length: frames }, (_, k) => ({
    x: Math.round(width / 2 + 0.4 * width * Math.sin((2 * Math.PI * 3 * k) / frames)),
    y: Math.round(height / 2 + 0.4 * height * Math.sin((2 * Math.PI * 2 * k) / frames + 0.5)),
  }));
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/** other / ours, an extra below the noise floor counting as the floor; null when both are below it (undecided). */
function noiseAwareRatio(other: number, ours: number): number | null {
  if (other < NOISE_FLOOR_MS && ours < NOISE_FLOOR_MS) return null;
  return round(other / Math.max(ours, NOISE_FLOOR_MS));
}
const roundFigures = (f: CostFigures) => ({ frames: f.frames, meanMs: round(f.meanMs), medianMs: round(f.medianMs), p95Ms: round(f.p95Ms) });

async function latencyOurs(page: Page, width: number, height: number, moves: Point[]): Promise<number[]> {
  await page.evaluate(([w, h]) => window.__bubbleBench.mount(w, h), [width, height]);
  await page.evaluate((view) => window.__bubbleBench.show(view), { media: 'photo.png', rect: { x: 0, y: 0, width, height }, bubble: { sigma: SIGMA, radius: height / 8 } });
  const frames: number[] = [];
  for (const p of moves) {
    await page.mouse.move(p.x, p.y);
    frames.push(
      await page.evaluate(async ([x, y]) => {
        const hook = window.__glimpseStage!;
        while (!(hook.drawn && hook.drawn.x === x && hook.drawn.y === y)) await new Promise((r) => requestAnimationFrame(r));
        const event = [...window.__bubbleBench.pointerLog].reverse().find((e) => e.x === x && e.y === y)!;
        return hook.drawn.frame - event.frameCount;
      }, [p.x, p.y]),
    );
  }
  await page.evaluate(() => window.__bubbleBench.clear());
  return frames;
}

async function latencyOther(page: Page, kind: 'pixi-filter' | 'css', setup: Setup, moves: Point[]): Promise<number[]> {
  await page.evaluate(([k, s]) => window.__bubbleBench.startLatency(k, s), [kind, setup] as const);
  for (const p of moves) {
    await page.mouse.move(p.x, p.y);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  }
  return page.evaluate(() => window.__bubbleBench.stopLatency());
}

/**
 * --gpu: at each deviation of GPU_SIGMAS, on an image made at the size's own resolution (a 2160p frame for 2160p):
 * (a)'s window frame (changed rectangle, and whole media), its two blur passes (what a new video frame adds), and
 * the same run's PixiJS BlurFilter + mask at that deviation; ratios = PixiJS / ours. A video frame of (a) is
 * counted as its blur passes plus a whole-media window frame (both measured here); PixiJS's frame is the same work
 * for an image and a video (it blurs every frame).
 */
async function sigmaSweep(page: Page, width: number, height: number, log: (m: string) => void) {
  const image = `photo-${width}x${height}.png`;
  await page.evaluate(([name, w, h]) => window.__bubbleBench.makePhotoLike(name, w, h), [image, width, height] as const);
  const setup: Setup = { width, height, image, sigma: SIGMA, radius: Math.round(height / 8) };
  const oursPath = pointerPath(width, height, quick ? 40 : 200);
  log(`${width}x${height}: sigma sweep ${GPU_SIGMAS.join('/')}: (a) changed rectangle, whole media, blur passes`);
  const changed = await page.evaluate(([st, sig, p]) => window.__bubbleBench.costOursSigmas(st, sig, p, 10, false), [setup, GPU_SIGMAS, oursPath] as const);
  const whole = await page.evaluate(([st, sig, p]) => window.__bubbleBench.costOursSigmas(st, sig, p, 10, true), [setup, GPU_SIGMAS, oursPath] as const);
  const blurs = await page.evaluate(([st, sig, n]) => window.__bubbleBench.costBlurPasses(st, sig, n), [setup, GPU_SIGMAS, quick ? 5 : 30] as const);
  const rows = [];
  for (const [i, sigma] of GPU_SIGMAS.entries()) {
    log(`${width}x${height}: sigma ${sigma}: (b) PixiJS BlurFilter + mask`);
    await page.evaluate(([k, st]) => window.__bubbleBench.start(k, st), ['pixi-filter', { ...setup, sigma }] as const);
    const pixi = await page.evaluate((p) => window.__bubbleBench.costFrames(p), pointerPath(width, height, FRAMES));
    await page.evaluate(() => window.__bubbleBench.stop());
    const rect = changed[String(sigma)]!;
    const all = whole[String(sigma)]!;
    const blur = blurs[i]!.cost;
    const videoFrameMs = blur.medianMs + all.medianMs;
    rows.push({
      sigma,
      oursChangedRectMs: roundFigures(rect),
      oursWholeMediaMs: roundFigures(all),
      oursBlurPassesMs: roundFigures(blur),
      oursVideoFrameMs: round(videoFrameMs, 3),
      blurPlan: blurs[i]!.plan,
      pixiFilterMs: roundFigures(pixi),
      ratios: {
        imagePixiOverOursChangedRect: round(pixi.medianMs / rect.medianMs),
        imagePixiOverOursWholeMedia: round(pixi.medianMs / all.medianMs),
        videoPixiOverOursVideoFrame: round(pixi.medianMs / videoFrameMs),
      },
    });
  }
  return { image: `${width}x${height}`, radius: setup.radius, rows };
}

function printSweep(sizes: Array<Record<string, any>>): void {
  const lines = [
    '',
    '| size | σ | (a) changed rect ms | (a) whole media ms | (a) blur passes ms | (a) video frame ms | (b) PixiJS ms | image b/a (rect) | image b/a (whole) | video b/a |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const s of sizes) {
    for (const r of s.gpuSweep?.rows ?? []) {
      lines.push(
        `| ${s.size} | ${r.sigma} | ${r.oursChangedRectMs.medianMs} | ${r.oursWholeMediaMs.medianMs} | ${r.oursBlurPassesMs.medianMs} | ${r.oursVideoFrameMs} | ${r.pixiFilterMs.medianMs} | ${r.ratios.imagePixiOverOursChangedRect} | ${r.ratios.imagePixiOverOursWholeMedia} | ${r.ratios.videoPixiOverOursVideoFrame} |`,
      );
    }
  }
  console.log(lines.join('\n'));
}

function summary(frames: number[]) {
  const counts: Record<string, number> = {};
  for (const f of frames) counts[f] = (counts[f] ?? 0) + 1;
  return { events: frames.length, framesHistogram: counts, firstFrameShare: round(frames.filter((f) => f === 1).length / Math.max(1, frames.length), 3) };
}

async function main(): Promise<void> {
  const started = Date.now();
  const log = (message: string) => console.error(`[bench:bubble ${((Date.now() - started) / 1000).toFixed(0)} s] ${message}`);
  const [maxW, maxH] = SIZES[0]!;
  const bench = await openBenchPage({
    root: benchDir,
    outDir: 'bench-bubble',
    viewport: { width: maxW, height: maxH },
    // Frame intervals measure the work only when the display rate does not cap them.
    extraArgs: ['--disable-frame-rate-limit', '--disable-gpu-vsync'],
    gpu,
  });
  const { page } = bench;
  page.on('pageerror', (error) => log(`page error: ${error.message}`));
  try {
    const renderer = await page.evaluate(() => window.__bubbleBench.renderer());
    log(`renderer: ${renderer} (flags ${bench.graphicsArgs.join(' ')})`);
    if (gpu && !dryRun && isSoftwareRenderer(renderer)) {
      // A software rasteriser's times are CPU times: never written down as GPU figures.
      console.error(`bench:bubble --gpu: the WebGL renderer is "${renderer}", not a GPU; no GPU figures written.`);
      process.exitCode = 2;
      return;
    }
    await page.evaluate(([w, h]) => window.__bubbleBench.makePhotoLike('photo.png', w, h), [IMAGE.width, IMAGE.height]);

    const cdp = await page.context().newCDPSession(page);
    // A screenshot that never comes back (seen once in headless Chromium) must fail the run, not hang it.
    const shot = () =>
      Promise.race([
        cdp.send('Page.captureScreenshot', { format: 'png', clip: { x: 0, y: 0, width: 1, height: 1, scale: 1 } }),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no composited frame within 30 s')), 30_000)),
      ]);
    /**
     * Frame to screen, node clock: a composited frame where nothing changed (static), then one after applying the next
     * path point (moving), alternately, so load from elsewhere on the machine hits both alike. The frame's own cost is
     * moving - static (the screenshot's fixed cost cancels out).
     */
    const toScreen = async (pathPoints: Point[]): Promise<{ static: CostFigures; moving: CostFigures; extraMs: number }> => {
      const still: number[] = [];
      const moving: number[] = [];
      for (const p of pathPoints) {
        let t0 = performance.now();
        await page.evaluate(() => undefined);
        await shot();
        still.push(performance.now() - t0);
        t0 = performance.now();
        await page.evaluate((point) => window.__bubbleBench.step(point), p);
        await shot();
        moving.push(performance.now() - t0);
      }
      const a = figures(still);
      const b = figures(moving);
      return { static: a, moving: b, extraMs: b.medianMs - a.medianMs };
    };
    const methods = [
      ['ours', '(a) ours'],
      ['pixi-filter', '(b) PixiJS BlurFilter + mask'],
      ['css', '(c) CSS blur + clip-path'],
    ] as const;

    const sizes = [];
    for (const [width, height] of SIZES) {
      const setup: Setup = { width, height, image: 'photo.png', sigma: SIGMA, radius: Math.round(height / 8) };
      const pathPoints = pointerPath(width, height, FRAMES);
      const measured: Record<string, { cost: CostFigures | null; toScreen: Awaited<ReturnType<typeof toScreen>> }> = {};
      for (const [kind, label] of methods) {
        log(`${width}x${height}: ${label}`);
        await page.evaluate(([k, st]) => window.__bubbleBench.start(k, st), [kind, setup] as const);
        const cost = kind === 'css' ? null : await page.evaluate((p) => window.__bubbleBench.costFrames(p), pathPoints);
        await toScreen(pathPoints.slice(0, 3));
        const screen = await toScreen(pathPoints);
        await page.evaluate(() => window.__bubbleBench.stop());
        measured[kind] = { cost, toScreen: screen };
      }
      log(`${width}x${height}: (a) at sigma 4 and 32, interleaved`);
      const bySigma = await page.evaluate(([st, sig, p]) => window.__bubbleBench.costOursSigmas(st, sig, p), [setup, [4, 32] as number[], pointerPath(width, height, quick ? 40 : 300)] as const);
      const blurs = await page.evaluate(([st, sig, n]) => window.__bubbleBench.costBlurPasses(st, sig, n), [setup, [4, 32] as number[], quick ? 5 : 15] as const);
      const ours = measured.ours!;
      const pixi = measured['pixi-filter']!;
      const css = measured.css!;
      const screenFigures = (t: Awaited<ReturnType<typeof toScreen>>) => ({ staticMs: roundFigures(t.static), movingMs: roundFigures(t.moving), extraMs: round(t.extraMs) });
      const sweep = gpu ? await sigmaSweep(page, width, height, log) : undefined;
      sizes.push({
        size: `${width}x${height}`,
        sigma: SIGMA,
        radius: setup.radius,
        ours: { cost: roundFigures(ours.cost!), toScreen: screenFigures(ours.toScreen) },
        pixiFilter: { cost: roundFigures(pixi.cost!), toScreen: screenFigures(pixi.toScreen) },
        css: { toScreen: screenFigures(css.toScreen) },
        sigmas: [4, 32].map((sigma, i) => ({ sigma, frame: roundFigures(bySigma[String(sigma)]!), videoFrameBlur: roundFigures(blurs[i]!.cost), plan: blurs[i]!.plan })),
        ratios: {
          pixiFilterOverOursCost: round(pixi.cost!.medianMs / ours.cost!.medianMs),
          /** Frame-to-screen cost of a window move (moving - static), over ours; null when both are under the noise floor. */
          cssOverOursToScreen: noiseAwareRatio(css.toScreen.extraMs, ours.toScreen.extraMs),
          pixiFilterOverOursToScreen: noiseAwareRatio(pixi.toScreen.extraMs, ours.toScreen.extraMs),
          oursSigma32OverSigma4Frame: round(bySigma['32']!.medianMs / bySigma['4']!.medianMs, 3),
          oursSigma32OverSigma4VideoBlur: round(blurs[1]!.cost.medianMs / blurs[0]!.cost.medianMs, 3),
        },
        ...(sweep ? { gpuSweep: sweep } : {}),
      });
    }

    log('latency: pointer event -> first frame drawing the window there (640x360)');
    const latencySetup: Setup = { width: 640, height: 360, image: 'photo.png', sigma: SIGMA, radius: 45 };
    const moves = Array.from({ length: LATENCY_MOVES }, (_, k) => ({ x: 40 + ((k * 97) % 560), y: 30 + ((k * 61) % 300) }));
    // A browser lost here must not lose the figures above: the failure is written down instead.
    const latencyOf = async (measure: () => Promise<number[]>) => {
      try {
        return summary(await measure());
      } catch (error) {
        log(`latency failed: ${String(error instanceof Error ? error.message : error).split('\n')[0]}`);
        return { events: 0, framesHistogram: {}, firstFrameShare: Number.NaN, error: String(error instanceof Error ? error.message : error).split('\n')[0] };
      }
    };
    const latency = {
      ours: await latencyOf(() => latencyOurs(page, 640, 360, moves)),
      pixiFilter: await latencyOf(() => latencyOther(page, 'pixi-filter', latencySetup, moves)),
      css: await latencyOf(() => latencyOther(page, 'css', latencySetup, moves)),
    };

    const targets = sizes.map((s) => ({
      size: s.size,
      oursAtLeast5xCheaperThanPixiFilter: s.ratios.pixiFilterOverOursCost >= 5,
      // null: both moves cost less than the noise floor to reach the screen (undecided on this machine).
      oursCheaperThanCss: s.ratios.cssOverOursToScreen === null ? null : s.css.toScreen.extraMs > s.ours.toScreen.extraMs,
      sigma32Within10PercentOfSigma4: Math.abs(s.ratios.oursSigma32OverSigma4Frame - 1) <= 0.1,
    }));
    const result = {
      bench: 'bubble',
      date: new Date().toISOString(),
      quick,
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', renderer, gpu, browser: bench.browser.version(), graphicsFlags: bench.graphicsArgs, gpuMachine: gpuMachine() },
      note: dryRun
        ? `Dry run of the --gpu code path on ${renderer}: not GPU figures.`
        : gpu
        ? `Run on the GPU of this machine (WebGL renderer: ${renderer}).`
        : 'SwiftShader (software WebGL2 on the CPU): no GPU machine was available; ratios are meaningful, absolute times are CPU times. Run `npm run bench:bubble -- --gpu` on a GPU machine for 1920x1080 and 3840x2160 frame times.',
      method: {
        cost: 'work of one frame (pointer read, uniforms, render) until a 1-pixel readPixels returns, manual clock; median over the pointer path',
        toScreen: 'node clock: a 1-pixel CDP screenshot waits for the next composited frame (raster + compositing counted for every method; CSS has no readPixels). Alternately a frame where nothing changed (static) and one after moving the window to the next path point (moving); extraMs = median moving - median static = what a window move costs to reach the screen (ratios count an extraMs below 1 ms as 1 ms: noise floor)',
        videoFrameBlur: 'both gaussian passes on one frame (what each new video frame costs), readPixels-synced',
        latency: 'frames between a real pointer event (Playwright mouse) and the first frame drawing the window at its position (1 = the next frame)',
      },
      sizes,
      latency,
      targets,
    };
    const outDir = resultsDir();
    writeBenchResult(path.join(outDir, dryRun ? 'bubble-gpu-dry-run.json' : gpu ? 'bubble-gpu.json' : 'bubble.json'), result);
    printTable(result);
    if (gpu) printSweep(result.sizes);
  } finally {
    await bench.close();
  }
}

function printTable(result: { sizes: Array<Record<string, any>>; latency: Record<string, ReturnType<typeof summary>>; machine: { renderer: string } }): void {
  const lines = [
    `renderer: ${result.machine.renderer}`,
    '',
    '| size | (a) cost ms | (b) cost ms | b/a | move to screen (a) / (b) / (c) ms | c/a | (a) frame σ4 / σ32 ms | σ32/σ4 | video-frame blur σ4 / σ32 ms | σ32/σ4 |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const s of result.sizes) {
    const [s4, s32] = s.sigmas;
    lines.push(
      `| ${s.size} | ${s.ours.cost.medianMs} | ${s.pixiFilter.cost.medianMs} | ${s.ratios.pixiFilterOverOursCost} | ${s.ours.toScreen.extraMs} / ${s.pixiFilter.toScreen.extraMs} / ${s.css.toScreen.extraMs} | ${s.ratios.cssOverOursToScreen ?? 'both < noise'} | ${s4.frame.medianMs} / ${s32.frame.medianMs} | ${s.ratios.oursSigma32OverSigma4Frame} | ${s4.videoFrameBlur.medianMs} / ${s32.videoFrameBlur.medianMs} | ${s.ratios.oursSigma32OverSigma4VideoBlur} |`,
    );
  }
  lines.push('', '| latency | events | frames histogram | share drawn in the first frame |', '|---|---|---|---|');
  for (const [name, l] of Object.entries(result.latency)) lines.push(`| ${name} | ${l.events} | ${JSON.stringify(l.framesHistogram)} | ${l.firstFrameShare} |`);
  console.log(lines.join('\n'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
