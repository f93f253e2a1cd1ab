/**
 * Node side: build the bench page (page.html + entry.tsx, the real Stage) with Vite, serve it with Vite's preview
 * server, and open it in headless Chromium with the flags the project uses (SwiftShader WebGL2, never --disable-gpu).
 *
 * Environment (for the GPU machine, scripts/gpu/): CHROMIUM_PATH picks the browser (as in playwright.config.ts);
 * GLIMPSE_BENCH_PREBUILT names a folder holding pages built ahead (`<outDir>/page.html`), served with node:http,
 * so no Vite is needed where the bench runs; GLIMPSE_GPU_FLAGS (JSON array) are the graphics flags a --gpu run uses.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import type { Browser, Page } from '@playwright/test';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(benchDir, '../..');

export const SWIFTSHADER_FLAGS = ['--use-angle=swiftshader', '--enable-unsafe-swiftshader'];
/** Graphics flags for a real GPU when GLIMPSE_GPU_FLAGS does not name others (scripts/gpu/probe picks them there). */
export const DEFAULT_GPU_FLAGS = ['--enable-gpu', '--ignore-gpu-blocklist', '--use-angle=default'];

export interface BenchPage {
  browser: Browser;
  page: Page;
  url: string;
  /** The graphics flags the browser was started with. */
  graphicsArgs: string[];
  close(): Promise<void>;
}

export interface BenchPageOptions {
  viewport?: { width: number; height: number };
  /** Build folder under .tmp/ (separate callers must not share one). */
  outDir?: string;
  /** Folder holding the page.html to build (default: bench/timing). */
  root?: string;
  /** Extra Chromium flags. */
  extraArgs?: string[];
  /** Real GPU instead of SwiftShader: GLIMPSE_GPU_FLAGS or DEFAULT_GPU_FLAGS. */
  gpu?: boolean;
}

export function gpuFlags(): string[] {
  const fromEnv = process.env.GLIMPSE_GPU_FLAGS;
  return fromEnv ? (JSON.parse(fromEnv) as string[]) : DEFAULT_GPU_FLAGS;
}

/** Build one bench page with Vite into `outDir` (also used by scripts/gpu/build-kit.ts to build pages ahead). */
export async function buildBenchPage(root: string, outDir: string): Promise<void> {
  const [{ build }, { default: react }] = await Promise.all([import('vite'), import('@vitejs/plugin-react')]);
  await build({
    configFile: false,
    root,
    base: './',
    logLevel: 'warn',
    plugins: [react()],
    build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 4000, rollupOptions: { input: path.join(root, 'page.html') } },
  });
}

const MIME: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };

/** A static server for a folder built ahead (127.0.0.1, a free port). */
async function serveFolder(folder: string): Promise<{ base: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const file = path.join(folder, decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
    if (!file.startsWith(folder) || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': MIME[path.extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function servePage(root: string, outName: string): Promise<{ base: string; close(): Promise<void> }> {
  const prebuilt = process.env.GLIMPSE_BENCH_PREBUILT;
  if (prebuilt) return serveFolder(path.resolve(prebuilt, outName));
  const outDir = path.join(repoRoot, '.tmp', outName);
  await buildBenchPage(root, outDir);
  const { preview } = await import('vite');
  const server = await preview({ configFile: false, root, logLevel: 'warn', build: { outDir }, preview: { host: '127.0.0.1', port: 0 } });
  const base = server.resolvedUrls?.local[0];
  if (!base) throw new Error('vite preview has no URL');
  // Connections a browser keeps alive would hold close() open: they are ended with it.
  return {
    base,
    close: () =>
      new Promise<void>((resolve) => {
        server.httpServer.close(() => resolve());
        (server.httpServer as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}

export interface ServedBenchPage {
  /** http://127.0.0.1:…/page.html: a secure context (WebCodecs works there). */
  url: string;
  close(): Promise<void>;
}

/** Builds a bench page (page.html + its entry) and serves it (the virtual display opens it in its own browser). */
export async function serveBenchPage(options: Pick<BenchPageOptions, 'outDir' | 'root'> = {}): Promise<ServedBenchPage> {
  const server = await servePage(options.root ?? benchDir, options.outDir ?? 'bench-timing');
  return { url: `${server.base}page.html`, close: server.close };
}

export async function openBenchPage(options: BenchPageOptions = {}): Promise<BenchPage> {
  const server = await servePage(options.root ?? benchDir, options.outDir ?? 'bench-timing');
  const graphicsArgs = options.gpu ? gpuFlags() : SWIFTSHADER_FLAGS;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: [...graphicsArgs, '--no-sandbox', ...(options.extraArgs ?? [])],
  });
  const page = await browser.newPage({ viewport: options.viewport ?? { width: 800, height: 450 } });
  // tsx-compiled functions passed to page.evaluate reference __name (FIELD-NOTES).
  await page.addInitScript('window.__name = (f) => f');
  const url = `${server.base}page.html`;
  await page.goto(url);
  return {
    browser,
    page,
    url,
    graphicsArgs,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/** The page's WebGL renderer (WEBGL_debug_renderer_info), as a WebGL2 canvas there reports it. */
export function webglRenderer(page: Page): Promise<string> {
  return page.evaluate(() => {
    const gl = document.createElement('canvas').getContext('webgl2');
    if (!gl) return 'no WebGL2';
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    return String(info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER));
  });
}

/** A software rasteriser's name in a renderer string: figures from it must never be called GPU figures. */
export function isSoftwareRenderer(renderer: string): boolean {
  return /swiftshader|llvmpipe|softpipe|software|no webgl/i.test(renderer);
}

/** Machine facts the GPU run script (scripts/gpu/run-on-gpu.sh) gathers, or null outside it. */
export function gpuMachine(): Record<string, unknown> | null {
  const raw = process.env.GLIMPSE_GPU_MACHINE;
  return raw ? (JSON.parse(raw) as Record<string, unknown>) : null;
}

/** Where results go: bench/results, or BENCH_RESULTS_DIR (the GPU run writes into the folder that comes back). */
export function resultsDir(): string {
  return process.env.BENCH_RESULTS_DIR ? path.resolve(process.env.BENCH_RESULTS_DIR) : path.join(repoRoot, 'bench', 'results');
}
