/**
 * The bench kit for the GPU machine (scripts/gpu/pack-browser.sh puts it in the pack): the bench pages built ahead
 * with Vite, the bench runners and the flag probe bundled into single files with esbuild (the bundler tsx and Vite
 * already bring), and playwright-core and sharp (with its libvips build for linux-x64) beside them. There, no Vite, no
 * sources and no npm install are needed. For bench:fidelity and the clip bench on the virtual display
 * (bench/display/clips.ts): the colour-bar clips of tests/fixtures/colour at ../tests/fixtures/colour (where the
 * bundle's import.meta.url finds them, as testkit/pixelFidelity does from its source) and frame-coded clips at
 * 1920×1080 and 3840×2160, 60 fps, 2 s, made here with ffmpeg into clips/ (the GPU machine has no ffmpeg).
 *
 *   npx tsx scripts/gpu/build-kit.ts OUT
 */
import { cpSync, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildBenchPage } from '../../bench/timing/benchPage';
import { encodeFrameCoded } from '../make-frame-coded-clips';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const out = path.resolve(process.argv[2] ?? path.join(repoRoot, '.tmp/gpu-kit'));

rmSync(out, { recursive: true, force: true });
// Folder names as openBenchPage's outDir: GLIMPSE_BENCH_PREBUILT=<out>/pages serves them.
await buildBenchPage(path.join(repoRoot, 'bench/bubble'), path.join(out, 'pages/bench-bubble'));
await buildBenchPage(path.join(repoRoot, 'bench/timing'), path.join(out, 'pages/bench-timing'));
await buildBenchPage(path.join(repoRoot, 'bench/3d'), path.join(out, 'pages/bench-3d'));
await build({
  entryPoints: {
    bubble: path.join(repoRoot, 'bench/bubble/run.ts'),
    timing: path.join(repoRoot, 'bench/timing/run.ts'),
    'three-d': path.join(repoRoot, 'bench/3d/run.ts'),
    fidelity: path.join(repoRoot, 'bench/fidelity/run.ts'),
    clips: path.join(repoRoot, 'bench/display/clips.ts'),
    probe: path.join(repoRoot, 'scripts/gpu/probe.ts'),
  },
  outdir: out,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Vite is only imported when pages are built on the spot, which the kit never does; sharp is a native addon.
  external: ['playwright-core', 'vite', '@vitejs/plugin-react', 'sharp'],
  alias: { '@playwright/test': 'playwright-core' },
  logLevel: 'warning',
});
// The trace viewer's web assets and the type declarations are not needed to drive a browser.
const playwright = path.join(repoRoot, 'node_modules/playwright-core');
cpSync(playwright, path.join(out, 'node_modules/playwright-core'), {
  recursive: true,
  filter: (source) => !['lib/vite', 'types', 'bin'].some((skip) => source.startsWith(path.join(playwright, skip))),
});
// sharp (PNG decode of the captures, the test media) with its prebuilt addon and libvips for linux-x64, and its
// dependencies; the sources and type declarations stay here.
for (const pkg of ['sharp', '@img/colour', '@img/sharp-linux-x64', '@img/sharp-libvips-linux-x64', 'detect-libc', 'semver']) {
  const from = path.join(repoRoot, 'node_modules', pkg);
  cpSync(from, path.join(out, 'node_modules', pkg), {
    recursive: true,
    filter: (source) => !/\.d\.[cm]?ts$|\.md$/.test(source) && !source.startsWith(path.join(from, 'src')),
  });
}
// Fixtures of bench:fidelity and the clip bench.
cpSync(path.join(repoRoot, 'tests/fixtures/colour'), path.join(out, '../tests/fixtures/colour'), { recursive: true });
mkdirSync(path.join(out, 'clips'), { recursive: true });
for (const [width, height] of [[1920, 1080], [3840, 2160]]) {
  const file = path.join(out, 'clips', `frames-60fps-${width}x${height}.mp4`);
  encodeFrameCoded(file, { fps: 60, seconds: 2, width, height });
  console.error(`${path.basename(file)}: ${statSync(file).size} bytes`);
}
console.error(`bench kit in ${out}`);
