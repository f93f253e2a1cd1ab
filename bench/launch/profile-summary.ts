import { readFile } from 'node:fs/promises';

/**
 * The functions a node spent its time in, from a V8 CPU profile (`node --cpu-prof`, bench:launch --cpu-prof): self
 * time per function and file, the largest first, as shares of the sampled time.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
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
