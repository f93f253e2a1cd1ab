/**
 * On the GPU machine: which graphics flags make the packed Chromium render WebGL on the GPU. Each candidate is
 * launched headless and asked for its WebGL renderer (WEBGL_debug_renderer_info), within PROBE_TIMEOUT_MS, in
 * order of preference; the first whose renderer is not a software rasteriser is chosen. Writes {candidates, chosen} as JSON to the file named
 * by argv[2] (and stdout), each candidate with the first lines of the browser's own log.
 */
import { writeFileSync } from 'node:fs';
import { chromium } from '@playwright/test';
import type { Browser } from '@playwright/test';
import { isSoftwareRenderer, webglRenderer } from '../../bench/timing/benchPage';

const PROBE_TIMEOUT_MS = 30_000;
/** PROBE_ALL=1: try every candidate (for the record); otherwise stop at the first GPU renderer (the lease is short). */
const tryAll = process.env.PROBE_ALL === '1';
const LOG_LINES = 40;
const common = ['--enable-gpu', '--ignore-gpu-blocklist'];
/** In order of preference: ANGLE on the driver's EGL (OpenGL ES), ANGLE on Vulkan, Chromium's default, native EGL. */
const CANDIDATES = [
  { name: 'angle-gl-egl', flags: ['--use-gl=angle', '--use-angle=gl-egl', ...common] },
  { name: 'angle-vulkan', flags: ['--use-angle=vulkan', '--enable-features=Vulkan', '--disable-vulkan-surface', ...common] },
  { name: 'angle-default', flags: ['--use-angle=default', ...common] },
  { name: 'native-egl', flags: ['--use-gl=egl', ...common] },
];

async function probe(flags: string[], log: string[]): Promise<{ renderer: string; version: string }> {
  let browser: Browser | null = null;
  const timer = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no renderer within ${PROBE_TIMEOUT_MS / 1000} s`)), PROBE_TIMEOUT_MS));
  const work = (async () => {
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH,
      args: [...flags, '--no-sandbox'],
      timeout: PROBE_TIMEOUT_MS,
      // The browser's own stdout/stderr (GPU process errors say why a backend failed).
      logger: { isEnabled: (name) => name === 'browser', log: (_name, _severity, message) => void (log.length < LOG_LINES && log.push(String(message).slice(0, 400))) },
    });
    const page = await browser.newPage();
    await page.goto('about:blank');
    return { renderer: await webglRenderer(page), version: browser.version() };
  })();
  try {
    return await Promise.race([work, timer]);
  } finally {
    // A browser whose GPU process keeps failing may not close gracefully: do not wait for it forever.
    await Promise.race([(browser as Browser | null)?.close(), new Promise((resolve) => setTimeout(resolve, 10_000))]);
  }
}

const candidates = [];
for (const candidate of CANDIDATES) {
  const log: string[] = [];
  let renderer: string;
  let version: string | undefined;
  try {
    ({ renderer, version } = await probe(candidate.flags, log));
  } catch (error) {
    renderer = `failed: ${String(error instanceof Error ? error.message : error).split('\n').slice(0, 3).join(' ')}`;
  }
  const gpu = !renderer.startsWith('failed') && !isSoftwareRenderer(renderer);
  console.error(`[probe] ${candidate.name}: ${renderer}${gpu ? ' (GPU)' : ''}`);
  candidates.push({ ...candidate, renderer, gpu, browser: version, log });
  if (gpu && !tryAll) break;
}
const chosen = candidates.find((c) => c.gpu) ?? null;
const result = { candidates, chosen: chosen && { name: chosen.name, flags: chosen.flags, renderer: chosen.renderer } };
if (process.argv[2]) writeFileSync(process.argv[2], `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify({ chosen: result.chosen }));
// A browser left hanging must not keep the probe alive.
process.exit(0);
