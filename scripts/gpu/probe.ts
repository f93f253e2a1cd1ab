/**
 * On the GPU machine: which graphics flags make the packed Chromium render WebGL on the GPU. Each candidate is
 * launched headless and asked for its WebGL renderer (WEBGL_debug_renderer_info); the first whose renderer is not a
 * software rasteriser is chosen. Writes {candidates, chosen} as JSON to the file named by argv[2] (and stdout).
 */
import { writeFileSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { isSoftwareRenderer, webglRenderer } from '../../bench/timing/benchPage';

const common = ['--enable-gpu', '--ignore-gpu-blocklist'];
/** In order of preference: ANGLE on the driver's EGL (OpenGL ES), ANGLE on Vulkan, Chromium's default, native EGL. */
const CANDIDATES = [
  { name: 'angle-gl-egl', flags: ['--use-gl=angle', '--use-angle=gl-egl', ...common] },
  { name: 'angle-vulkan', flags: ['--use-angle=vulkan', '--enable-features=Vulkan', '--disable-vulkan-surface', ...common] },
  { name: 'angle-default', flags: ['--use-angle=default', ...common] },
  { name: 'native-egl', flags: ['--use-gl=egl', ...common] },
];

async function rendererWith(flags: string[]): Promise<{ renderer: string; version?: string }> {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH, args: [...flags, '--no-sandbox'], timeout: 30_000 });
  try {
    const page = await browser.newPage();
    await page.goto('about:blank');
    return { renderer: await webglRenderer(page), version: browser.version() };
  } finally {
    await browser.close();
  }
}

const candidates = [];
for (const candidate of CANDIDATES) {
  let renderer: string;
  let version: string | undefined;
  try {
    ({ renderer, version } = await rendererWith(candidate.flags));
  } catch (error) {
    renderer = `launch failed: ${String(error instanceof Error ? error.message : error).split('\n').slice(0, 3).join(' ')}`;
  }
  const gpu = !renderer.startsWith('launch failed') && !isSoftwareRenderer(renderer);
  console.error(`[probe] ${candidate.name}: ${renderer}${gpu ? ' (GPU)' : ''}`);
  candidates.push({ ...candidate, renderer, gpu, browser: version });
}
const chosen = candidates.find((c) => c.gpu) ?? null;
const result = { candidates, chosen: chosen && { name: chosen.name, flags: chosen.flags, renderer: chosen.renderer } };
if (process.argv[2]) writeFileSync(process.argv[2], `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result));
