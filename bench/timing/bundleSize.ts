/**
 * Initial JavaScript of the built app: build the web app with the project's vite.config.ts into a scratch folder
 * (dist/web is left alone, other runs may be serving it), read which scripts index.html loads eagerly
 * (<script type="module" src> and <link rel="modulepreload">), and sum their gzip sizes. Also says whether
 * PixiJS ended up in an eager chunk (it must only be in the lazy Stage chunk).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

export interface BundleFigures {
  ok: boolean;
  error?: string;
  eagerFiles: Array<{ file: string; bytes: number; gzipBytes: number }>;
  eagerGzipBytes: number;
  eagerGzipKB: number;
  targetKB: number;
  withinTarget: boolean;
  pixiInEagerChunks: boolean;
  /** Lazy chunks holding PixiJS (should be the Stage chunk). */
  pixiChunks: string[];
  totalJsGzipKB: number;
}

const TARGET_KB = 150;

interface ChunkInfo {
  type: string;
  fileName: string;
  moduleIds?: string[];
  modules?: Record<string, unknown>;
}

/** Where the scratch build goes (transfer.ts serves it). */
export const benchWebDir = (repoRoot: string) => path.join(repoRoot, '.tmp/bench-timing-web');

export async function measureInitialJs(repoRoot: string): Promise<BundleFigures> {
  const outDir = benchWebDir(repoRoot);
  let output: ChunkInfo[];
  try {
    const { build } = await import('vite');
    const result = await build({
      configFile: path.join(repoRoot, 'vite.config.ts'),
      root: repoRoot,
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true, sourcemap: false },
    });
    const results = (Array.isArray(result) ? result : [result]) as Array<{ output?: ChunkInfo[] }>;
    output = results.flatMap((r) => r.output ?? []);
  } catch (error) {
    return notMeasured(`the app build failed: ${String(error instanceof Error ? error.message : error).split('\n')[0]}`);
  }
  const html = readFileSync(path.join(outDir, 'index.html'), 'utf8');
  const eager = new Set<string>();
  for (const match of html.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g)) eager.add(match[1]);
  for (const match of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)) eager.add(match[1]);
  const files = [...eager].map((src) => src.replace(/^\//, '').replace(/^\.\//, ''));
  const eagerFiles = files.map((file) => {
    const bytes = readFileSync(path.join(outDir, file));
    return { file, bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length };
  });
  const chunks = output.filter((o) => o.type === 'chunk');
  const hasPixi = (chunk: ChunkInfo) =>
    (chunk.moduleIds ?? Object.keys(chunk.modules ?? {})).some((id) => /node_modules[\\/](pixi\.js|@pixi[\\/]react)[\\/]/.test(id));
  const pixiChunks = chunks.filter(hasPixi).map((c) => c.fileName);
  const totalJs = chunks.reduce((a, c) => a + gzipSync(readFileSync(path.join(outDir, c.fileName)), { level: 9 }).length, 0);
  const eagerGzipBytes = eagerFiles.reduce((a, f) => a + f.gzipBytes, 0);
  return {
    ok: true,
    eagerFiles,
    eagerGzipBytes,
    eagerGzipKB: Math.round((eagerGzipBytes / 1024) * 10) / 10,
    targetKB: TARGET_KB,
    withinTarget: eagerGzipBytes / 1024 < TARGET_KB,
    pixiInEagerChunks: pixiChunks.some((file) => files.includes(file)),
    pixiChunks,
    totalJsGzipKB: Math.round((totalJs / 1024) * 10) / 10,
  };
}

export function notMeasured(error: string): BundleFigures {
  return {
    ok: false,
    error,
    eagerFiles: [],
    eagerGzipBytes: 0,
    eagerGzipKB: 0,
    targetKB: TARGET_KB,
    withinTarget: false,
    pixiInEagerChunks: false,
    pixiChunks: [],
    totalJsGzipKB: 0,
  };
}
