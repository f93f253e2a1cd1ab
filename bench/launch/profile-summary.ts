import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The functions a node spent its time in, from a V8 CPU profile (`node --cpu-prof`, bench:launch --cpu-prof): self
 * time per function and file, the largest first, as shares of the sampled time.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/**
 * The summary of the main thread's profile among those a process wrote (one per thread: tsx's loader runs on a
 * thread of its own): the one that was least idle.
 */
export async function busiestProfile(dir: string): Promise<Array<{ fn: string; share: number }>> {
  const summaries = await Promise.all((await readdir(dir)).filter((f) => f.endsWith('.cpuprofile')).map((f) => topFunctions(join(dir, f))));
  const idle = (s: Array<{ fn: string; share: number }>) => s.find((f) => f.fn.startsWith('(idle)'))?.share ?? 0;
  return summaries.sort((a, b) => idle(a) - idle(b))[0] ?? [];
}

export async function topFunctions(file: string, count = 15): Promise<Array<{ fn: string; share: number }>> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as { nodes: ProfileNode[] };
  const self = new Map<string, number>();
  let total = 0;
  for (const n of profile.nodes) {
    const hits = n.hitCount ?? 0;
    total += hits;
    const url = n.callFrame.url.replace(/^.*\/(node_modules\/|src\/)/, '$1');
    const key = `${n.callFrame.functionName || '(anonymous)'} ${url}${url ? `:${n.callFrame.lineNumber + 1}` : ''}`;
    self.set(key, (self.get(key) ?? 0) + hits);
  }
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([fn, hits]) => ({ fn, share: Math.round((hits / total) * 1000) / 10 }));
}
