/**
 * npm run bench:fidelity — what the participant sees against the file, captured on the virtual display
 * (testkit/virtualDisplay.ts, each frame a PNG in device pixels). docs/pixels.md.
 * - Images, at device pixel ratios 1, 1.25, 1.5, 1.75 and 2: a 160×120 noise PNG drawn with the layout before this
 *   work (the baseline, measured in the same run: whole CSS pixels, filtered linearly) and with 'native' and
 *   'integer'; the share of drawn device pixels equal to the file's pixel they show (k×k replication), and the worst
 *   channel difference. Also an alpha PNG ('integer', composited over the background) and a JPEG ('native') against
 *   libjpeg-turbo's decode (sharp) and Chromium's own <img>.
 * - Video colour: each colour-bar clip of tests/fixtures/colour on the stage's planes path, against the browser's
 *   own conversions in the same run (copyTo RGBA, the stage's path before, `?video=pixels`; the VideoFrame upload,
 *   `?video=frames`; the <video> element, `?video=element`): the worst channel difference from ffmpeg's reference
 *   decode over the bars.
 * Writes bench/results/fidelity.json and prints the tables of docs/pixels.md.
 *
 * `--gpu` (scripts/gpu/run-on-gpu.sh fidelity): the same run with the virtual display on the machine's GPU
 * (GLIMPSE_GPU_FLAGS, the packed browser of CHROMIUM_PATH); the display's own WebGL renderer is read and recorded, a
 * software one refused; writes fidelity-gpu.json under BENCH_RESULTS_DIR. `--gpu --dry-run`: the same code path on
 * whatever renderer there is (fidelity-gpu-dry-run.json), never GPU figures.
 */
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { gpuMachine, resultsDir, serveBenchPage } from '../timing/benchPage';
import { displayGpuMode, OPEN_LIMIT_MS, RendererCheck, within } from '../display/gpuDisplay';
import { decodePng } from '../../testkit/frameCode';
import { displayGraphicsFlags } from '../../testkit/virtualDisplay';
import {
  ALPHA,
  BACKGROUND,
  canvasOf,
  colourReferences,
  compareDrawn,
  composite,
  drawnBars,
  imgCapture,
  JPEG_SIZE,
  NOISE,
  openColourDisplay,
  openPixelDisplay,
  photoJpeg,
  showCaptured,
  worstBar,
  type Fidelity,
} from '../../testkit/pixelFidelity';
import { layoutSingle, pixelsPerMediaPixel } from '../../src/web/stage/layouts';
import { writeBenchResult } from '../shared/run-stamp';

const RATIOS = [1, 1.25, 1.5, 1.75, 2];
const { gpu, dryRun } = displayGpuMode();
const renderers = new RendererCheck({ gpu, dryRun }, 'bench:fidelity');

interface ImageRow {
  ratio: number;
  mode: 'before (CSS px, linear)' | 'native' | 'integer';
  drawn: string;
  equalShare: number;
  worst: number;
}

const share = (f: Fidelity) => Math.round((f.equal / f.pixels) * 10000) / 100;

async function imageRows(url: string, jpeg: Buffer): Promise<{ rows: ImageRow[]; alpha: Array<{ ratio: number; equalShare: number; worst: number }>; jpeg: Array<{ ratio: number; equalToLibjpeg: number; worstAgainstImg: number }> }> {
  const rows: ImageRow[] = [];
  const alphaRows: Array<{ ratio: number; equalShare: number; worst: number }> = [];
  const jpegRows: Array<{ ratio: number; equalToLibjpeg: number; worstAgainstImg: number }> = [];
  const reference = await decodePng(await sharp(jpeg).png().toBuffer());
  for (const ratio of RATIOS) {
    const display = await within(openPixelDisplay(url, ratio, jpeg), OPEN_LIMIT_MS, `virtual display at ratio ${ratio}`);
    try {
      await renderers.check(display);
      const { value: device } = await display.evaluate(() => window.__bench.controller!.devicePixels(), null);
      const noise = { media: 'noise.png', size: { width: NOISE.width, height: NOISE.height } };
      // The layout before: whole CSS pixels, the media upscaled by the ratio and filtered linearly.
      const before = layoutSingle({ width: device.width / ratio, height: device.height / ratio }, noise);
      const shown = await showCaptured(display, before);
      const d = shown.record.items![0]!.device;
      const rect = { x: Math.round(d.x), y: Math.round(d.y), width: Math.round(d.width), height: Math.round(d.height) };
      const fitted = compareDrawn(shown.capture, rect, ratio, (x, y) => composite(NOISE, x, y, BACKGROUND));
      rows.push({ ratio, mode: 'before (CSS px, linear)', drawn: `${rect.width}×${rect.height}`, equalShare: share(fitted), worst: fitted.worst });
      for (const scaling of ['native', 'integer'] as const) {
        const item = layoutSingle({ ...canvasOf(device), scaling }, noise);
        const k = pixelsPerMediaPixel(scaling, ratio);
        const { capture } = await showCaptured(display, item);
        const f = compareDrawn(capture, item.pixels!.device, k, (x, y) => composite(NOISE, x, y, BACKGROUND));
        rows.push({ ratio, mode: scaling, drawn: `${item.pixels!.device.width}×${item.pixels!.device.height}`, equalShare: share(f), worst: f.worst });
      }
      const alpha = layoutSingle({ ...canvasOf(device), scaling: 'integer' }, { media: 'alpha.png', size: { width: ALPHA.width, height: ALPHA.height } });
      const k = pixelsPerMediaPixel('integer', ratio);
      const a = compareDrawn((await showCaptured(display, alpha)).capture, alpha.pixels!.device, k, (x, y) => composite(ALPHA, x, y, BACKGROUND));
      alphaRows.push({ ratio, equalShare: share(a), worst: a.worst });
      const photo = layoutSingle({ ...canvasOf(device), scaling: 'native' }, { media: 'photo.jpg', size: JPEG_SIZE });
      const onStage = (await showCaptured(display, photo)).capture;
      const byImg = await imgCapture(display, jpeg, ratio);
      const exact = compareDrawn(onStage, photo.pixels!.device, 1, (x, y) => reference.pixel(x, y));
      const againstImg = compareDrawn(onStage, photo.pixels!.device, 1, (x, y) => byImg.pixel(x, y));
      jpegRows.push({ ratio, equalToLibjpeg: share(exact), worstAgainstImg: againstImg.worst });
    } finally {
      await display.close();
    }
    console.log(`ratio ${ratio}: done`);
  }
  return { rows, alpha: alphaRows, jpeg: jpegRows };
}

type Path = 'stage (planes)' | 'copyTo RGBA (before)' | 'VideoFrame upload' | '<video> element';

async function colourRows(url: string): Promise<Array<{ clip: string; path: Path; upload: string | null; worst: number; bars: number[][] }>> {
  const references = colourReferences();
  const rows: Array<{ clip: string; path: Path; upload: string | null; worst: number; bars: number[][] }> = [];
  const paths: Array<[Path, string]> = [
    ['stage (planes)', url],
    ['copyTo RGBA (before)', `${url}${url.includes('?') ? '&' : '?'}video=pixels`],
    ['VideoFrame upload', `${url}${url.includes('?') ? '&' : '?'}video=frames`],
    ['<video> element', `${url}${url.includes('?') ? '&' : '?'}video=element`],
  ];
  for (const [name, pageUrl] of paths) {
    const display = await within(openColourDisplay(pageUrl), OPEN_LIMIT_MS, `virtual display for ${name}`);
    try {
      await renderers.check(display);
      for (const [file, clip] of Object.entries(references)) {
        const drawn = await drawnBars(display, file, clip);
        rows.push({ clip: file, path: name, upload: drawn.upload, worst: worstBar(drawn.bars, clip.bars), bars: drawn.bars });
      }
    } finally {
      await display.close();
    }
    console.log(`${name}: done`);
  }
  return rows;
}

function markdown(images: Awaited<ReturnType<typeof imageRows>>, colour: Awaited<ReturnType<typeof colourRows>>): string {
  const out = ['| Ratio | Layout | Drawn (device px) | Pixels equal to the file | Worst channel |', '|---|---|---|---|---|'];
  for (const r of images.rows) out.push(`| ${r.ratio} | ${r.mode} | ${r.drawn} | ${r.equalShare} % | ${r.worst} |`);
  out.push('', '| Ratio | Alpha PNG (integer): equal | worst | JPEG (native): equal to libjpeg-turbo | worst against Chromium\'s <img> |', '|---|---|---|---|---|');
  images.alpha.forEach((a, i) => out.push(`| ${a.ratio} | ${a.equalShare} % | ${a.worst} | ${images.jpeg[i]!.equalToLibjpeg} % | ${images.jpeg[i]!.worstAgainstImg} |`));
  const clips = [...new Set(colour.map((c) => c.clip))];
  const paths = [...new Set(colour.map((c) => c.path))];
  out.push('', `| Clip | ${paths.join(' | ')} |`, `|---|${paths.map(() => '---').join('|')}|`);
  for (const clip of clips) out.push(`| ${clip} | ${paths.map((p) => colour.find((c) => c.clip === clip && c.path === p)?.worst ?? '–').join(' | ')} |`);
  return out.join('\n');
}

const served = await serveBenchPage({ outDir: 'bench-fidelity' });
const outFile = path.join(resultsDir(), dryRun ? 'fidelity-gpu-dry-run.json' : gpu ? 'fidelity-gpu.json' : 'fidelity.json');
try {
  const started = new Date().toISOString();
  const t0 = performance.now();
  const host = { cpus: os.cpus().length, model: os.cpus()[0]?.model, load: os.loadavg() };
  const graphics = gpu
    ? { gpu: true, dryRun, graphicsFlags: displayGraphicsFlags(), machine: gpuMachine(), note: dryRun ? 'Dry run of the --gpu code path: not GPU figures.' : undefined }
    : { gpu: false, graphicsFlags: displayGraphicsFlags() };
  const write = (result: object) => {
    writeBenchResult(outFile, { started, host, ...graphics, renderers: [...renderers.seen], ...result });
  };
  let images: Awaited<ReturnType<typeof imageRows>> | undefined;
  let imagesS = 0;
  try {
    images = await imageRows(served.url, await photoJpeg());
    imagesS = Math.round((performance.now() - t0) / 100) / 10;
    // Written at once: a run cut short (the GPU machine's time limit) keeps the image figures.
    write({ seconds: { images: imagesS }, images });
    const colour = await colourRows(served.url);
    write({ seconds: { images: imagesS, colour: Math.round((performance.now() - t0) / 100) / 10 - imagesS }, images, colour });
    console.log(`renderers: ${[...renderers.seen].join('; ')}`);
    console.log(markdown(images, colour));
  } catch (error) {
    // What was measured, and why the rest was not; a display left hanging must not keep the process alive.
    const message = String(error instanceof Error ? error.message : error).slice(0, 2000);
    write({ seconds: { images: imagesS }, ...(images ? { images } : {}), error: message });
    console.error(`bench:fidelity: ${message}`);
    process.exit(3);
  }
} finally {
  await served.close();
}
