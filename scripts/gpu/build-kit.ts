/**
 * The bench kit for the GPU machine (scripts/gpu/pack-browser.sh puts it in the pack): the bench pages built ahead
 * with Vite, the bench runners and the flag probe bundled into single files with esbuild (the bundler tsx and Vite
 * already bring), and playwright-core beside them. There, no Vite, no sources and no npm install are needed.
 *
 *   npx tsx scripts/gpu/build-kit.ts OUT
 */
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildBenchPage } from '../../bench/timing/benchPage';

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
    probe: path.join(repoRoot, 'scripts/gpu/probe.ts'),
  },
  outdir: out,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Vite is only imported when pages are built on the spot, which the kit never does.
  external: ['playwright-core', 'vite', '@vitejs/plugin-react'],
  alias: { '@playwright/test': 'playwright-core' },
  logLevel: 'warning',
});
// The trace viewer's web assets and the type declarations are not needed to drive a browser.
const playwright = path.join(repoRoot, 'node_modules/playwright-core');
cpSync(playwright, path.join(out, 'node_modules/playwright-core'), {
  recursive: true,
  filter: (source) => !['lib/vite', 'types', 'bin'].some((skip) => source.startsWith(path.join(playwright, skip))),
});
console.error(`bench kit in ${out}`);
