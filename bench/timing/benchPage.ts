/**
 * Node side: build the bench page (page.html + entry.tsx, the real Stage) with Vite, serve it with Vite's preview
 * server, and open it in headless Chromium with the flags the project uses (SwiftShader WebGL2, never --disable-gpu).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { chromium } from '@playwright/test';
import type { Browser, Page } from '@playwright/test';
import { build, preview } from 'vite';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(benchDir, '../..');

export interface BenchPage {
  browser: Browser;
  page: Page;
  url: string;
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
  /** Graphics flags; default SwiftShader WebGL2 (`--use-angle=swiftshader --enable-unsafe-swiftshader`). Never --disable-gpu. */
  graphicsArgs?: string[];
}

export interface ServedBenchPage {
  /** http://127.0.0.1:…/page.html: a secure context (WebCodecs works there). */
  url: string;
  close(): Promise<void>;
}

/** Builds the bench page and serves it with Vite's preview server (for a browser this module does not start). */
export async function serveBenchPage(options: Pick<BenchPageOptions, 'outDir' | 'root'> = {}): Promise<ServedBenchPage> {
  const outDir = path.join(repoRoot, '.tmp', options.outDir ?? 'bench-timing');
  const root = options.root ?? benchDir;
  await build({
    configFile: false,
    root,
    base: './',
    logLevel: 'warn',
    plugins: [react()],
    build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 4000, rollupOptions: { input: path.join(root, 'page.html') } },
  });
  const server = await preview({ configFile: false, root, logLevel: 'warn', build: { outDir }, preview: { host: '127.0.0.1', port: 0 } });
  const base = server.resolvedUrls?.local[0];
  if (!base) throw new Error('vite preview has no URL');
  return {
    url: `${base}page.html`,
    close: () => new Promise<void>((resolve) => server.httpServer.close(() => resolve())),
  };
}

export async function openBenchPage(options: BenchPageOptions = {}): Promise<BenchPage> {
  const served = await serveBenchPage(options);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [...(options.graphicsArgs ?? ['--use-angle=swiftshader', '--enable-unsafe-swiftshader']), '--no-sandbox', ...(options.extraArgs ?? [])],
  });
  const page = await browser.newPage({ viewport: options.viewport ?? { width: 800, height: 450 } });
  // tsx-compiled functions passed to page.evaluate reference __name (FIELD-NOTES).
  await page.addInitScript('window.__name = (f) => f');
  const url = served.url;
  await page.goto(url);
  return {
    browser,
    page,
    url,
    async close() {
      await browser.close();
      await served.close();
    },
  };
}
