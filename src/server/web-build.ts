import { spawn } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Newest modification time under these paths (files or folders, recursively); 0 when none exist. */
async function newestMtime(paths: string[]): Promise<number> {
  let newest = 0;
  for (const path of paths) {
    const info = await stat(path).catch(() => null);
    if (!info) continue;
    if (info.isDirectory()) {
      const entries = await readdir(path);
      newest = Math.max(newest, await newestMtime(entries.map((e) => join(path, e))));
    } else newest = Math.max(newest, info.mtimeMs);
  }
  return newest;
}

/** Sources the web bundle is built from (the web app imports the contract too). */
const WEB_SOURCES = ['src/web', 'src/contract', 'index.html', 'vite.config.ts', 'public', 'shaders'];

/** True when {webDir}/index.html is missing or older than a web source file. */
export async function webBuildIsStale(root: string, webDir: string): Promise<boolean> {
  const built = await stat(join(webDir, 'index.html')).catch(() => null);
  if (!built) return true;
  return (await newestMtime(WEB_SOURCES.map((p) => join(root, p)))) > built.mtimeMs;
}

/** Runs `npx vite build` in `root`, output shown; rejects when it fails. */
export function buildWebApp(root: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['vite', 'build'], { cwd: root, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`vite build failed (exit code ${code})`))));
  });
}
