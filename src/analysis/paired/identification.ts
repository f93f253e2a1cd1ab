/**
 * Which paired-comparison scores the data identify. The MLE of a Thurstone or Bradley–Terry scale exists only
 * when, within each connected part of the comparison graph, every stimulus has beaten and lost to every other
 * through some chain of votes (Zermelo 1929, Ford 1957: the "beats" graph is strongly connected). Otherwise the
 * part splits into groups ordered without one contrary vote (unanimous pairs are the simplest case): the order of
 * the groups is supported, the distances between them are not (the likelihood keeps growing as they move apart;
 * only pwcmp's prior or the BT penalty keeps them finite).
 */
import { components } from './thurstone-objective.js';

export interface Identification {
  /** Connected parts of the comparison graph, stimulus indices; scores are comparable only within a part. */
  parts: number[][];
  /** Per part with more than one group: its strongly connected groups of the "beats" graph, best first. */
  separated: Array<{ part: number; groups: number[][] }>;
}

/** d[i·n + j] = times i beat j. */
export function identification(d: Float64Array, n: number): Identification {
  const group = components(d, n);
  const parts: number[][] = [];
  for (let i = 0; i < n; i++) (parts[group[i]] ??= []).push(i);
  const groups = strongComponents(d, n);
  const separated: Identification['separated'] = [];
  parts.forEach((members, part) => {
    const inPart = new Set(members);
    const ordered = groups.filter((g) => inPart.has(g[0]));
    if (ordered.length > 1) separated.push({ part, groups: ordered });
  });
  return { parts, separated };
}

/**
 * Strongly connected components of the "beats" graph (Tarjan), in topological order of their condensation:
 * a group comes before every group it beat, so the best group is first.
 */
function strongComponents(d: Float64Array, n: number): number[][] {
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const found: number[][] = [];
  let next = 0;
  const visit = (v: number) => {
    index[v] = low[v] = next++;
    stack.push(v);
    onStack[v] = 1;
    for (let w = 0; w < n; w++) {
      if (d[v * n + w] <= 0) continue;
      if (index[w] < 0) {
        visit(w);
        low[v] = Math.min(low[v], low[w]);
      } else if (onStack[w]) low[v] = Math.min(low[v], index[w]);
    }
    if (low[v] === index[v]) {
      const members: number[] = [];
      let w: number;
      do {
        w = stack.pop() as number;
        onStack[w] = 0;
        members.push(w);
      } while (w !== v);
      found.push(members.sort((a, b) => a - b));
    }
  };
  for (let v = 0; v < n; v++) if (index[v] < 0) visit(v);
  // Tarjan finds a group after every group it reaches (those it beat): reversed, the winners come first.
  return found.reverse();
}
